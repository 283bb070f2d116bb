package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The demo's side of one {@link DemoWorker} process: starts it, reads its protocol lines on a
 * reader thread, sends GO, and stops it.
 *
 * <p>Thread-safe: the reader thread publishes through volatile fields and atomics; the demo's
 * thread and its shutdown hook may both call {@link #stop}.
 */
final class WorkerProcess {
  /** What a worker reported in its DONE line. */
  record Result(long acquisitions, Histogram waits) {}

  /** Holds whose lease the worker's {@code unlock()} reported lost (its LOST line; demo only). */
  long leasesLost() {
    return leasesLost;
  }

  /** Calls the worker tried again after they failed (its LOST line; demo only). */
  long retriedCalls() {
    return retriedCalls;
  }

  private final int number;
  private final Process process;
  private final PrintStream err;
  private final CountDownLatch readyOrGone = new CountDownLatch(1);
  private final AtomicLong progress = new AtomicLong();
  private volatile long leasesLost;
  private volatile long retriedCalls;
  private final Thread reader;
  private volatile boolean ready;
  private volatile String wakeUps = "(not said)";
  private volatile Result result;
  private volatile String failure;

  private WorkerProcess(int number, Process process, PrintStream err) {
    this.number = number;
    this.process = process;
    this.err = err;
    this.reader = new Thread(this::readLines, "demo-reader-" + number);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code command} as worker number {@code number}; its stderr goes to ours. */
  static WorkerProcess start(int number, List<String> command, PrintStream err) throws IOException {
    return start(number, command, Map.of(), err);
  }

  /**
   * The same, with {@code environment} added to the worker's (for what its command line must not
   * show).
   */
  static WorkerProcess start(
      int number, List<String> command, Map<String, String> environment, PrintStream err)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putAll(environment);
    return new WorkerProcess(number, builder.start(), err);
  }

  int number() {
    return number;
  }

  long pid() {
    return process.pid();
  }

  /**
   * Who publishes the worker's wake-ups, as its READY line said ({@code WakeUps} of its {@code
   * build()}), or "(not said)".
   */
  String wakeUps() {
    return wakeUps;
  }

  /** Waits until the worker said READY or exited; returns whether it is ready. */
  boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
    readyOrGone.await(timeout, unit);
    return ready;
  }

  /** Tells the worker to start its clock. */
  void go() throws IOException {
    OutputStream stdin = process.getOutputStream();
    stdin.write("GO\n".getBytes(UTF_8));
    stdin.flush();
  }

  /** Returns the latest acquisition count the worker reported. */
  long progress() {
    return progress.get();
  }

  CompletableFuture<Process> onExit() {
    return process.onExit();
  }

  /** Returns the exit status of a worker that has exited. */
  int exitValue() {
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Returns the worker's result once it has exited and its output is read, or empty if it did not
   * report one; then {@link #problem()} says why.
   */
  Optional<Result> result() throws InterruptedException {
    process.waitFor();
    reader.join(TimeUnit.SECONDS.toMillis(5));
    return Optional.ofNullable(result);
  }

  /** Returns why the worker has no result, for a worker that has exited. */
  String problem() {
    String exit = "worker " + number + " exited with status " + process.exitValue();
    if (failure != null) {
      return exit + ": " + failure;
    }
    return result == null ? exit + " without a result" : exit;
  }

  /** Closes the worker's stdin, which it takes as the order to exit at once. */
  void closeInput() {
    try {
      process.getOutputStream().close();
    } catch (IOException alreadyClosed) {
      // Closing is all we wanted; a pipe the worker already closed needs nothing more.
    }
  }

  /** Stops the worker: closes its stdin, then kills it if it has not exited within 2 s. */
  void stop() {
    closeInput();
    try {
      process.onExit().get(2, TimeUnit.SECONDS);
      return;
    } catch (TimeoutException | ExecutionException stillRunning) {
      // Killed below.
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt(); // kill at once below, and let the caller see it
    }
    process.destroyForcibly();
  }

  private void readLines() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        try {
          accept(line);
        } catch (RuntimeException malformed) { // keep draining, or the worker blocks on a full pipe
          failure = "unreadable line '" + line + "': " + malformed.getMessage();
        }
      }
    } catch (IOException e) {
      failure = "output unreadable: " + e;
    } finally {
      readyOrGone.countDown();
    }
  }

  private void accept(String line) {
    String[] fields = line.split(" ", 2);
    switch (fields[0]) {
      case "READY" -> {
        wakeUps = fields.length > 1 ? fields[1].strip() : "(not said)";
        ready = true;
        readyOrGone.countDown();
      }
      case "PROGRESS" -> progress.set(Long.parseLong(fields[1].strip()));
      case "DONE" -> result = parseDone(fields[1]);
      case "LOST" -> {
        String[] counts = fields[1].strip().split(" ", -1);
        leasesLost = Long.parseLong(counts[0]);
        retriedCalls = Long.parseLong(counts[1]);
      }
      case "FAILED" -> failure = fields.length > 1 ? fields[1] : "(no message)";
      default -> err.println("[worker " + number + "] " + line);
    }
  }

  private static Result parseDone(String fields) {
    // <acquisitions> <p50> <p99> <max> <histogram>; the summary is for people reading the stream,
    // the histogram is what adds up across workers.
    String[] parts = fields.strip().split(" ", -1);
    long acquisitions = Long.parseLong(parts[0]);
    Histogram waits = Waits.decode(parts[parts.length - 1]);
    if (waits.getTotalCount() != acquisitions) {
      throw new IllegalArgumentException(
          "DONE reports " + acquisitions + " acquisitions but " + waits.getTotalCount() + " waits");
    }
    return new Result(acquisitions, waits);
  }

  /**
   * The command that starts this JVM's {@link Main} again as a worker: the same java, class path,
   * and a small serial-GC heap (a worker needs no parallel GC threads on a shared machine).
   */
  static List<String> javaCommand(String workerCommand) {
    return javaCommand(workerCommand, List.of());
  }

  /**
   * The same, with {@code classPathFirst} in front of the class path: for tests only (see {@link
   * Chaos#TEST_SCRIPTS_PROPERTY}).
   */
  static List<String> javaCommand(String workerCommand, List<Path> classPathFirst) {
    List<String> classPath = new ArrayList<>();
    classPathFirst.forEach(path -> classPath.add(path.toString()));
    classPath.add(System.getProperty("java.class.path"));
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    return new ArrayList<>(
        List.of(
            java,
            "-XX:+UseSerialGC",
            "-Xmx256m",
            "-cp",
            String.join(File.pathSeparator, classPath),
            Main.class.getName(),
            workerCommand));
  }

  /**
   * In a worker: exits (status 1) as soon as stdin closes, which means the process that started it
   * ended or was killed, so that nobody waits for its results; {@code who} names it in the message.
   */
  static void exitWhenStdinCloses(BufferedReader stdin, PrintStream err, String who) {
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (stdin.readLine() != null) {
                  // Nothing is sent after GO; anything else is ignored.
                }
              } catch (IOException closed) {
                // A broken pipe means the same as the end of input.
              }
              err.println("warden " + who + ": the process that started it went away; stopping");
              System.exit(1);
            },
            "worker-watcher");
    watcher.setDaemon(true);
    watcher.start();
  }

  /**
   * In a worker: prints the protocol's {@code DONE <count> <p50 us> <p99 us> <max us> <histogram>}
   * line for the waits of all its threads, which the starting process parses.
   */
  static void reportDone(PrintStream out, List<Histogram> waits) {
    Histogram all = Waits.histogram();
    waits.forEach(all::add);
    out.println(
        String.join(
            " ",
            "DONE",
            Long.toString(all.getTotalCount()),
            Long.toString(all.getValueAtPercentile(50)),
            Long.toString(all.getValueAtPercentile(99)),
            Long.toString(all.getMaxValue()),
            Waits.encode(all)));
  }
}
