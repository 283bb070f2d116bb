package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An append-only event log of {@code warden chaos}: one line per event, {@code <nanoTime> <kind>
 * <fields...>}, separated by single spaces. {@link System#nanoTime()} is one monotonic clock for
 * every JVM of the machine on Linux, so the checker merges the logs of all workers and the fault
 * injector on one time line.
 *
 * <p>Kinds written by workers: {@code A} a wait ({@code <object> <started> <bound ms> <outcome>
 * <holder>}), {@code T} a lock acquired ({@code <object> <holder> <token>}), {@code W} a write to
 * the protected resource and {@code V} a read of it ({@code <object> <holder> <token> <sequence
 * number in the section>}), {@code R} a lock released ({@code <object> <holder> ok|lost|error
 * <accesses made>}), {@code L} a lost lease reported ({@code <object> <holder>}), {@code P} a
 * permit taken ({@code <object> <holder>}), {@code Q} a permit given back ({@code <object> <holder>
 * ok|lost|error}), {@code E} an error ({@code <operation> <message>}), {@code K} a client-side leak
 * at the end ({@code <description>}), {@code I} idle at the end ({@code <stats>}), {@code U} an
 * unexpected exception ({@code <message>}), {@code H} a pause of the process, stamped when it ended
 * ({@code <paused from> heartbeat|gc:<collector>:<cause>}; see {@link ChaosHeartbeat}). The fault
 * injector writes {@code F} ({@code <end> <kind> <data: false|true|empty> <worker or -> <detail>};
 * see {@link ChaosDeployment.Data}) and {@code N}, the plain semaphore's next epoch ({@code <epoch>
 * <ms the deployment took to settle>}; see {@link ChaosEpochs}). A holder names one section: {@code
 * w<worker>.<thread>.<number>}; the plain semaphore's objects are {@code chaos-sem-<epoch>}.
 *
 * <p>Thread-safe: lines are written whole under the log's monitor and flushed at once, so that a
 * worker's log is complete up to the moment it stops.
 */
final class ChaosLog implements AutoCloseable {
  private final BufferedWriter out;

  private ChaosLog(BufferedWriter out) {
    this.out = out;
  }

  /** Creates (or truncates) the log file. */
  static ChaosLog create(Path file) {
    try {
      return new ChaosLog(Files.newBufferedWriter(file, UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the chaos log " + file, e);
    }
  }

  /** Writes one event stamped now. */
  void write(String kind, Object... fields) {
    writeAt(System.nanoTime(), kind, fields);
  }

  /** Writes one event stamped {@code nanos}. */
  synchronized void writeAt(long nanos, String kind, Object... fields) {
    StringBuilder line = new StringBuilder().append(nanos).append(' ').append(kind);
    for (Object field : fields) {
      line.append(' ').append(String.valueOf(field).replaceAll("\\s+", "_"));
    }
    try {
      out.write(line.append('\n').toString());
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the chaos log", e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the chaos log", e);
    }
  }
}
