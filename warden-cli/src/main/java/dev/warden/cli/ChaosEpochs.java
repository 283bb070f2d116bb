package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalInt;

/**
 * The epochs of the plain semaphore in a {@code warden chaos} run: one new semaphore ({@code
 * chaos-sem-<epoch>}, 3 permits) after each fault that lost Redis's data, so that each can be
 * judged at exactly its permits.
 *
 * <p>A plain permit has no owner: a permit taken before a rewind and given back after it adds one
 * to the rewound count. So a semaphore that lived through such a fault may rightly have more than
 * its permits, and no checker can say how many more without knowing what the rewind kept. A new
 * semaphore after the fault has settled has no such history: until the next fault that loses data
 * starts, it must never have had more holders than its 3 permits.
 *
 * <p>The epoch is a number in a file of the run's directory, outside Redis, which faults cannot
 * reach. The fault injector {@linkplain #announce announces} each new one once the deployment has
 * settled, and logs the instant ({@code N}) before the file changes, so that every acquisition of
 * an epoch starts after its announcement. Workers {@linkplain #read read} the file before each
 * acquisition and give each permit back to the semaphore it came from.
 *
 * <p>Thread-safe: the file is replaced atomically; one writer (the injector's thread).
 */
final class ChaosEpochs {
  /** The name of epoch {@code n}'s semaphore is this and the number. */
  static final String PREFIX = "chaos-sem-";

  /** The plain semaphore's name in logs from before epochs: one semaphore for the whole run. */
  static final String BEFORE_EPOCHS = "chaos-semaphore";

  private final Path file;
  private int epoch;

  private ChaosEpochs(Path file) {
    this.file = file;
  }

  /** Creates the epoch file of a run, at epoch 0. */
  static ChaosEpochs start(Path file) {
    ChaosEpochs epochs = new ChaosEpochs(file);
    epochs.write(0);
    return epochs;
  }

  /** The semaphore of epoch {@code epoch}. */
  static String semaphore(int epoch) {
    return PREFIX + epoch;
  }

  /** The epoch of a plain semaphore's name, or empty if it names none. */
  static OptionalInt epochOf(String object) {
    if (object.equals(BEFORE_EPOCHS)) {
      return OptionalInt.of(0);
    }
    if (!object.startsWith(PREFIX)) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(object.substring(PREFIX.length())));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  /** In a worker: the current epoch, read from the run's epoch file. */
  static int read(Path file) {
    try {
      return Integer.parseInt(Files.readString(file, UTF_8).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the epoch file " + file, e);
    }
  }

  /** The current epoch. */
  synchronized int current() {
    return epoch;
  }

  /**
   * Starts the next epoch: logs {@code N <epoch> <settle ms>} to {@code log}, stamped before the
   * file changes, then replaces the file. Returns the new epoch.
   */
  synchronized int announce(ChaosLog log, long settleMillis) {
    long at = System.nanoTime();
    int next = epoch + 1;
    log.writeAt(at, "N", next, settleMillis);
    write(next);
    return next;
  }

  private void write(int value) {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    try {
      Files.writeString(next, Integer.toString(value), UTF_8);
      Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the epoch file " + file, e);
    }
    epoch = value;
  }
}
