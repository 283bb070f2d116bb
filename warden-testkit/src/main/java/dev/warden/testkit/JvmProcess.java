package dev.warden.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@code main} class run in a new JVM, for tests where a lock owner must die for real (its
 * process killed, not a thread stopped) or where two processes compete.
 *
 * <pre>{@code
 * try (JvmProcess holder = JvmProcess.start(HoldLock.class, server.uri(), "orders")) {
 *   holder.awaitLine("locked", Duration.ofSeconds(20));
 *   holder.kill();
 *   // the lease runs out: another owner can take the lock
 * }
 * }</pre>
 *
 * <p>The child runs the same {@code java} binary with the same class path, {@code -Xmx256m} and
 * UTF-8 output. A daemon thread reads its standard output line by line into {@link #lines()};
 * standard error goes to a temporary log file, quoted when {@link #awaitLine} fails. Its standard
 * input stays open and empty.
 *
 * <p><b>Lifecycle.</b> {@link #close()} kills the child if it is still alive and deletes the log; a
 * JVM shutdown hook kills children still alive when the test JVM exits.
 *
 * <p><b>Thread-safety.</b> All methods are thread-safe.
 *
 * @since 0.2
 */
public final class JvmProcess implements AutoCloseable {
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

  private final Process process;
  private final String mainClass;
  private final Path stderrLog;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition output = lock.newCondition();
  private final List<String> lines = new ArrayList<>(); // guarded by lock
  private boolean stdoutClosed; // guarded by lock

  private JvmProcess(Process process, String mainClass, Path stderrLog) {
    this.process = process;
    this.mainClass = mainClass;
    this.stderrLog = stderrLog;
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM and returns at once, without waiting
   * for the child to print anything.
   *
   * @throws NullPointerException if {@code mainClass} or {@code args} is null
   * @throws IllegalStateException if the {@code java} binary cannot be found or started
   */
  public static JvmProcess start(Class<?> mainClass, String... args) {
    return start(System.getProperty("java.class.path"), mainClass, args);
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM on the class path {@code classPath}
   * (entries joined by the platform's path separator) instead of this JVM's, and returns at once:
   * for a child that runs other versions of some classes, e.g. an earlier release of Warden.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code classPath} is blank
   * @throws IllegalStateException if the {@code java} binary cannot be found or started
   * @since 0.2
   */
  public static JvmProcess start(String classPath, Class<?> mainClass, String... args) {
    Objects.requireNonNull(classPath, "classPath must not be null");
    Objects.requireNonNull(mainClass, "mainClass must not be null");
    Objects.requireNonNull(args, "args must not be null");
    if (classPath.isBlank()) {
      throw new IllegalArgumentException("classPath must not be blank: '" + classPath + "'");
    }
    List<String> command = new ArrayList<>();
    command.add(javaBinary());
    command.add("-Xmx256m");
    // Pinned so the reader below decodes exactly what the child encodes.
    command.add("-Dfile.encoding=UTF-8");
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    Path stderrLog;
    try {
      stderrLog = Files.createTempFile("warden-jvm-", ".stderr.log");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a log file for the child JVM", e);
    }
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.appendTo(stderrLog.toFile()))
              .start();
    } catch (IOException e) {
      deleteQuietly(stderrLog);
      throw new IllegalStateException("cannot start a JVM: " + command.get(0), e);
    }
    Reaper.track(process);
    JvmProcess jvm = new JvmProcess(process, mainClass.getName(), stderrLog);
    Thread reader = new Thread(jvm::readStdout, "warden-jvm-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    return jvm;
  }

  /**
   * Returns the first line of standard output that starts with {@code prefix}, waiting at most
   * {@code timeout} for the child to print it. A line printed before the call counts.
   *
   * @throws IllegalStateException if the timeout elapses or the child exits first (the message
   *     quotes the lines seen and the end of standard error), or if the calling thread is
   *     interrupted (its interrupt flag is then set)
   */
  public String awaitLine(String prefix, Duration timeout) {
    Objects.requireNonNull(prefix, "prefix must not be null");
    if (timeout == null || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be null or negative: " + timeout);
    }
    long remaining = timeout.toNanos();
    lock.lock();
    try {
      int scanned = 0;
      while (true) {
        for (; scanned < lines.size(); scanned++) {
          if (lines.get(scanned).startsWith(prefix)) {
            return lines.get(scanned);
          }
        }
        if (stdoutClosed) {
          throw failure("exited before printing a line starting with '" + prefix + "'");
        }
        if (remaining <= 0) {
          throw failure("printed no line starting with '" + prefix + "' within " + timeout);
        }
        remaining = output.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while waiting for a line starting with '" + prefix + "' from " + this, e);
    } finally {
      lock.unlock();
    }
  }

  /** Returns the lines of standard output printed so far, oldest first; a snapshot. */
  public List<String> lines() {
    lock.lock();
    try {
      return List.copyOf(lines);
    } finally {
      lock.unlock();
    }
  }

  /** Returns the child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Returns whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Kills the child with SIGKILL and returns once it has exited; does nothing if it already has.
   *
   * @throws IllegalStateException if it has not exited 10 s after SIGKILL, or the calling thread is
   *     interrupted (its interrupt flag is then set)
   */
  public void kill() {
    process.destroyForcibly();
    waitFor(EXIT_TIMEOUT);
  }

  /**
   * Returns the child's exit code, waiting at most {@code timeout} for it to exit.
   *
   * @throws IllegalStateException if the child is still running after {@code timeout}, or the
   *     calling thread is interrupted (its interrupt flag is then set)
   */
  public int waitFor(Duration timeout) {
    if (timeout == null || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be null or negative: " + timeout);
    }
    try {
      if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(this + " did not exit within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + this + " to exit", e);
    }
    Reaper.untrack(process);
    return process.exitValue();
  }

  /** Kills the child if it is still alive and deletes its standard error log. Idempotent. */
  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
    Reaper.untrack(process);
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // The child is gone; its stdin pipe has nothing left to flush.
    }
    deleteQuietly(stderrLog);
  }

  /** Returns a description naming the main class and the process id, for failure messages. */
  @Override
  public String toString() {
    return "JvmProcess[" + mainClass + ", pid " + process.pid() + "]";
  }

  private void readStdout() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lock.lock();
        try {
          lines.add(line);
          output.signalAll();
        } finally {
          lock.unlock();
        }
      }
    } catch (IOException e) {
      // The pipe broke because the child died; end of output all the same.
    } finally {
      lock.lock();
      try {
        stdoutClosed = true;
        output.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Called with the lock held. */
  private IllegalStateException failure(String what) throws InterruptedException {
    StringBuilder message = new StringBuilder().append(this).append(' ').append(what);
    // Standard output closes a moment before the process is reaped; wait a little for its code.
    if (stdoutClosed ? process.waitFor(1, TimeUnit.SECONDS) : !process.isAlive()) {
      message.append(" (exit code ").append(process.exitValue()).append(')');
    }
    message.append("\nstdout (").append(lines.size()).append(" lines):");
    for (String line : lines) {
      message.append("\n  ").append(line);
    }
    message.append("\nstderr: ").append(LogTail.of(stderrLog));
    return new IllegalStateException(message.toString());
  }

  private static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .or(
            () ->
                Optional.ofNullable(System.getenv("JAVA_HOME"))
                    .map(home -> Path.of(home, "bin", "java").toString()))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "cannot find the java binary: the current process does not tell,"
                        + " and JAVA_HOME is not set"));
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // A leftover log in the temp directory is harmless; failing a test over it is not.
    }
  }
}
