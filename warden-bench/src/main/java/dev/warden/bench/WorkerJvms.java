package dev.warden.bench;

import dev.warden.testkit.JvmProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The trial of a W7 point: P worker JVMs ({@link W7Worker}), each with its own client and T
 * threads, started with the benchmark's class path through the testkit's {@link JvmProcess}. {@link
 * #launch} returns once every worker has warmed up (printed {@code READY}) and has been told to go;
 * the window is this JVM's, on the monotonic clock the workers stamp their critical sections with;
 * {@link #finish} tells them to stop, reads their section logs and merges them into a {@link
 * Timeline}.
 *
 * <p>The tally also counts the {@code workers} and how many of them warmed up until their JIT was
 * quiet ({@code workers_jit_quiet}; the others stopped at the longest warm-up). The workers' CPU
 * time in the window is read from the operating system ({@link
 * ProcessHandle.Info#totalCpuDuration()}, in clock ticks) and added to the tally as {@code
 * worker_cpu_ns}; {@code worker_cpu_unknown} is 1 where the platform does not tell. The same CPU
 * split by the kind of thread that used it ({@link ProcThreads}: JIT compiler, GC, timers, event
 * loops, the lock threads...) is added as {@code worker_cpu_<kind>_ns}, with {@code
 * worker_threads_born} and {@code worker_threads_ended} in the window; {@code
 * worker_cpu_by_class_unknown} is 1 where there is no {@code /proc} to read it from. The threads
 * are read just inside the window (after the total at its opening, before it at its close).
 *
 * <p>Used by the runner's thread only. A worker that exits before it is told to stop ends {@link
 * #await} early and fails the trial.
 */
final class WorkerJvms implements Trial {
  /** How long a JVM may take to start and connect, beyond its warm-up, on a busy machine. */
  private static final Duration START_GRACE = Duration.ofSeconds(60);

  private final Path dir;
  private final List<JvmProcess> workers;
  private final CountDownLatch exited = new CountDownLatch(1);
  private final Window window = new Window();
  private volatile boolean stopping;
  private int jitQuiet;
  private long cpuAtOpen = -1;
  private long cpuAtClose = -1;
  private List<Optional<ProcThreads.Snapshot>> threadsAtOpen = List.of();
  private List<Optional<ProcThreads.Snapshot>> threadsAtClose = List.of();
  private Deliveries deliveries; // or null; set before the window opens, by the runner's thread
  private final List<SectionLog> extraLogs = new ArrayList<>(); // sections of other clients
  private List<SectionLog> logs = List.of(); // every process's sections, once finished

  private WorkerJvms(Path dir, List<JvmProcess> workers) {
    this.dir = dir;
    this.workers = workers;
  }

  /**
   * Starts {@code processes} workers of {@code library} on {@code lockName}, waits until all have
   * warmed up, and tells them to go.
   *
   * @throws BenchException if a worker fails to start or to warm up within its time
   */
  static WorkerJvms launch(
      Library library,
      boolean fair,
      String uri,
      int processes,
      int threads,
      String lockName,
      long quietMillis,
      Duration maxWarmUp) {
    return launch(library, fair, uri, processes, threads, lockName, quietMillis, maxWarmUp, false);
  }

  /**
   * Starts workers like the other {@code launch}; with {@code once}, each of their threads takes
   * the lock once, after waiting in the queue (W8; see {@link W7Worker}).
   */
  static WorkerJvms launch(
      Library library,
      boolean fair,
      String uri,
      int processes,
      int threads,
      String lockName,
      long quietMillis,
      Duration maxWarmUp,
      boolean once) {
    Path dir;
    try {
      dir = Files.createTempDirectory("warden-bench-w7-");
    } catch (IOException e) {
      throw new BenchException("cannot create a directory for the worker processes: " + e, e);
    }
    // Asks for the clock tick (getconf) now rather than at the window's opening.
    long unusedTicks = ProcThreads.ticksPerSecond();
    List<JvmProcess> started = new ArrayList<>();
    WorkerJvms trial = new WorkerJvms(dir, started);
    try {
      for (int process = 0; process < processes; process++) {
        W7Worker.Args args =
            new W7Worker.Args(
                library, fair, uri, threads, lockName, dir, process, quietMillis, maxWarmUp, once);
        started.add(JvmProcess.start(W7Worker.class, args.args().toArray(String[]::new)));
      }
      for (JvmProcess worker : started) {
        // READY <warm-up ms> <compile ms in its last second>
        String[] ready = worker.awaitLine("READY", maxWarmUp.plus(START_GRACE)).split(" ", -1);
        if (ready.length == 3 && Long.parseLong(ready[2]) < quietMillis) {
          trial.jitQuiet++;
        }
      }
      for (JvmProcess worker : started) {
        Optional<ProcessHandle> handle = ProcessHandle.of(worker.pid());
        if (handle.isPresent()) {
          CompletableFuture<?> unused = handle.get().onExit().thenRun(trial::exitedEarly);
        } else {
          trial.exitedEarly();
        }
      }
      Files.writeString(dir.resolve("go"), "go\n");
      return trial;
    } catch (IllegalStateException | IOException e) {
      trial.close();
      throw new BenchException(failure(e), e);
    }
  }

  /**
   * Has this trial count the pub/sub deliveries to its clients in its window ({@code publishes},
   * {@code deliveries} in its tally); the trial closes the counter when it finishes.
   */
  WorkerJvms counting(Deliveries counter) {
    this.deliveries = counter;
    return this;
  }

  /** Returns the worker processes, in order: for a trial that waits for lines of their own. */
  List<JvmProcess> processes() {
    return workers;
  }

  /**
   * Adds the sections of a client outside the workers (W8's holder) to the timeline that {@link
   * #finish} checks; its process number follows the workers'.
   */
  void addSections(SectionLog log) {
    extraLogs.add(log);
  }

  /** Returns every process's sections, the added ones last: empty until {@link #finish}. */
  List<SectionLog> logs() {
    return logs;
  }

  private static String failure(Exception e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    // The worker's FAILED line says why; JvmProcess quotes it with the rest of its output.
    return "a worker process failed: " + message;
  }

  private void exitedEarly() {
    if (!stopping) {
      exited.countDown();
    }
  }

  @Override
  public void await(Duration duration) throws InterruptedException {
    exited.await(duration.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void openWindow() {
    window.open();
    cpuAtOpen = workersCpuNanos();
    threadsAtOpen = workersThreads();
    if (deliveries != null) {
      deliveries.open();
    }
  }

  @Override
  public void closeWindow() {
    if (window.isOpen()) {
      threadsAtClose = workersThreads();
      cpuAtClose = workersCpuNanos();
      window.close();
      if (deliveries != null) {
        deliveries.closeWindow();
      }
    }
  }

  @Override
  public Tally finish(Duration grace) throws InterruptedException {
    closeWindow();
    stopping = true;
    try {
      Files.writeString(dir.resolve("stop"), "stop\n");
      List<SectionLog> logs = new ArrayList<>();
      for (int process = 0; process < workers.size(); process++) {
        workers.get(process).awaitLine("DONE", grace);
        logs.add(SectionLog.read(dir.resolve("process-" + process + ".log")));
      }
      if (exited.getCount() == 0) {
        throw new BenchException("a worker process exited before it was told to stop");
      }
      logs.addAll(extraLogs);
      this.logs = List.copyOf(logs);
      Tally tally = Timeline.of(logs, window).tally();
      tally.set("workers", workers.size());
      tally.set("workers_jit_quiet", jitQuiet);
      if (cpuAtOpen < 0 || cpuAtClose < 0) {
        tally.set("worker_cpu_unknown", 1);
      } else {
        tally.set("worker_cpu_ns", cpuAtClose - cpuAtOpen);
      }
      addThreadClasses(tally);
      if (deliveries != null) {
        deliveries.addTo(tally);
      }
      return tally;
    } catch (IllegalStateException e) {
      throw new BenchException(failure(e), e);
    } catch (IOException e) {
      throw new BenchException("cannot read the worker processes' sections: " + e, e);
    } finally {
      close();
    }
  }

  /** Returns the workers' CPU time so far, all together; -1 if the platform does not tell. */
  private long workersCpuNanos() {
    long sum = 0;
    for (JvmProcess worker : workers) {
      Duration cpu =
          ProcessHandle.of(worker.pid())
              .flatMap(handle -> handle.info().totalCpuDuration())
              .orElse(null);
      if (cpu == null) {
        return -1;
      }
      sum += cpu.toNanos();
    }
    return sum;
  }

  /** Returns each worker's threads now (empty where unknown). */
  private List<Optional<ProcThreads.Snapshot>> workersThreads() {
    List<Optional<ProcThreads.Snapshot>> snapshots = new ArrayList<>();
    for (JvmProcess worker : workers) {
      snapshots.add(ProcThreads.read(worker.pid()));
    }
    return snapshots;
  }

  /** Adds the workers' CPU in the window by kind of thread, or that it is unknown, to the tally. */
  private void addThreadClasses(Tally tally) {
    boolean known = threadsAtOpen.size() == workers.size() && !workers.isEmpty();
    for (int i = 0; known && i < workers.size(); i++) {
      known = threadsAtOpen.get(i).isPresent() && threadsAtClose.get(i).isPresent();
    }
    if (!known) {
      tally.set("worker_cpu_by_class_unknown", 1);
      return;
    }
    Map<ProcThreads.Kind, Long> sum = new EnumMap<>(ProcThreads.Kind.class);
    long born = 0;
    long ended = 0;
    for (int i = 0; i < workers.size(); i++) {
      ProcThreads.Snapshot before = threadsAtOpen.get(i).orElseThrow();
      ProcThreads.Snapshot after = threadsAtClose.get(i).orElseThrow();
      ProcThreads.since(before, after).forEach((kind, nanos) -> sum.merge(kind, nanos, Long::sum));
      born += ProcThreads.born(before, after);
      ended += ProcThreads.ended(before, after);
    }
    sum.forEach((kind, nanos) -> tally.set(cpuKey(kind), nanos));
    tally.set("worker_threads_born", born);
    tally.set("worker_threads_ended", ended);
  }

  /** Returns the tally's key of the workers' CPU used by one kind of thread, in nanoseconds. */
  static String cpuKey(ProcThreads.Kind kind) {
    return "worker_cpu_" + kind.key() + "_ns";
  }

  /** Kills workers still alive, closes the delivery counter and deletes the trial's directory. */
  private void close() {
    stopping = true;
    workers.forEach(JvmProcess::close);
    if (deliveries != null) {
      deliveries.close();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      // A few leftover files in the temp directory are harmless; failing the trial over them is
      // not.
    }
  }
}
