package dev.warden.bench;

import dev.warden.bench.SectionLog.Section;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One worker process of W7, W7F, W8, W9 and W10, started by the benchmark ({@link WorkerJvms}) with
 * its class path: T threads of one client of one library contend for one lock with the other
 * processes'.
 *
 * <pre>
 * W7Worker LIBRARY KIND URI THREADS LOCK DIR PROCESS QUIET_MS MAX_WARM_UP_MS
 *   LIBRARY  warden or redisson        KIND     plain or fair; plain-once or fair-once (W8)
 *   DIR      the trial's directory     PROCESS  this process's number, from 0
 * </pre>
 *
 * <p>The protocol with the parent, over standard output and files in {@code DIR}:
 *
 * <ol>
 *   <li>Warms up: the threads take and release {@code LOCK:warm-up} until the JIT has compiled less
 *       than {@code QUIET_MS} of code over the last second (or for {@code MAX_WARM_UP_MS}), then
 *       prints {@code READY <warm-up ms> <compile ms of the last second>}.
 *   <li>Waits for the file {@code DIR/go}, then the threads take and release {@code LOCK}, each
 *       through a lock object of its own, recording every critical section ({@link SectionLog}) and
 *       incrementing a plain per-process counter inside it.
 *   <li>When the file {@code DIR/stop} appears, the threads finish their current section; the
 *       process writes {@code DIR/process-<PROCESS>.log}, prints {@code DONE <sections>} and exits
 *       with 0. On a failure it prints {@code FAILED <why>} and exits with 1; it halts if the
 *       parent dies.
 * </ol>
 *
 * <p>A {@code -once} kind (W8, a deep queue) warms up with at most 4 threads, and after {@code go}
 * each of the T threads calls lock() once on {@code LOCK}, which another client holds: the process
 * prints {@code WAITING <threads>} once every thread is about to call it, and {@code DRAINED} once
 * every thread has taken the lock, recorded its section and released it. At {@code stop} it writes
 * the sections of the threads that got the lock (one still waiting is left behind) and prints
 * {@code DONE}.
 *
 * <p>The files are polled, every millisecond before the start and every 100 ms while measuring: the
 * parent has no way into a child's standard input. Polled every 5 ms, the stat calls and wake-ups
 * of 16 JVMs on 2 cores cost 159 µs of main-thread CPU per acquisition at W9 16x1, not noise; the
 * parent's window closes before the stop file is written, so a slower look costs no measurement.
 */
public final class W7Worker {
  private static final Duration COMPILE_SAMPLE = Duration.ofSeconds(1);
  private static final Duration MIN_WARM_UP = Duration.ofSeconds(2);
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  /** How often the main thread looks for the stop file while the threads work (see run()). */
  private static final long STOP_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final Args settings;
  private final Function<String, Lock> locks;

  /**
   * The command line, parsed.
   *
   * @param library whose client
   * @param fair whether the fair lock (else the reentrant one)
   * @param uri the Redis
   * @param threads how many threads contend in this process
   * @param lockName the lock measured
   * @param dir the trial's directory
   * @param process this process's number
   * @param quietMillis compile time per second under which the JIT counts as quiet
   * @param maxWarmUp the longest warm-up
   * @param once whether each thread takes the lock once, after waiting in a queue (W8)
   */
  record Args(
      Library library,
      boolean fair,
      String uri,
      int threads,
      String lockName,
      Path dir,
      int process,
      long quietMillis,
      Duration maxWarmUp,
      boolean once) {

    /** Returns the arguments of a worker whose threads take and release the lock in a loop. */
    Args(
        Library library,
        boolean fair,
        String uri,
        int threads,
        String lockName,
        Path dir,
        int process,
        long quietMillis,
        Duration maxWarmUp) {
      this(library, fair, uri, threads, lockName, dir, process, quietMillis, maxWarmUp, false);
    }

    /** Returns the command line that {@link #parse} reads back. */
    List<String> args() {
      return List.of(
          library.key(),
          (fair ? "fair" : "plain") + (once ? "-once" : ""),
          uri,
          Integer.toString(threads),
          lockName,
          dir.toString(),
          Integer.toString(process),
          Long.toString(quietMillis),
          Long.toString(maxWarmUp.toMillis()));
    }

    /**
     * Parses the command line.
     *
     * @throws IllegalArgumentException naming the argument that is wrong
     */
    static Args parse(List<String> args) {
      if (args.size() != 9) {
        throw new IllegalArgumentException(
            "usage: W7Worker LIBRARY KIND URI THREADS LOCK DIR PROCESS QUIET_MS MAX_WARM_UP_MS,"
                + " got "
                + args);
      }
      Library library;
      try {
        library = Library.valueOf(args.get(0).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("library must be warden or redisson: " + args.get(0), e);
      }
      String kind = args.get(1);
      if (!List.of("plain", "fair", "plain-once", "fair-once").contains(kind)) {
        throw new IllegalArgumentException(
            "kind must be plain, fair, plain-once or fair-once: " + kind);
      }
      return new Args(
          library,
          kind.startsWith("fair"),
          args.get(2),
          positive("threads", args.get(3)),
          args.get(4),
          Path.of(args.get(5)),
          positive("process", args.get(6)),
          positive("quiet ms", args.get(7)),
          Duration.ofMillis(positive("max warm-up ms", args.get(8))),
          kind.endsWith("-once"));
    }

    private static int positive(String name, String text) {
      try {
        int value = Integer.parseInt(text);
        if (value >= (name.equals("process") ? 0 : 1)) {
          return value;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(name + " must be a whole number in range: " + text);
    }
  }

  private W7Worker(Args settings, Function<String, Lock> locks) {
    this.settings = settings;
    this.locks = locks;
  }

  /** Runs one worker process; see the class comment for the protocol. */
  public static void main(String[] args) {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    // An orphan would hold its lock traffic on a shared Redis until someone noticed.
    Optional<ProcessHandle> parent = ProcessHandle.current().parent();
    if (parent.isPresent()) {
      CompletableFuture<?> unused =
          parent.get().onExit().thenRun(() -> Runtime.getRuntime().halt(3));
    }
    int status;
    try {
      Args settings = Args.parse(Arrays.asList(args));
      try (Contender contender = settings.library().connect(settings.uri(), Optional.empty())) {
        Function<String, Lock> locks = settings.fair() ? contender::fairLock : contender::lock;
        status = new W7Worker(settings, locks).run();
      }
    } catch (InterruptedException e) {
      System.out.println("FAILED interrupted");
      status = 1;
    } catch (RuntimeException | IOException e) {
      System.out.println("FAILED " + e.toString().replace('\n', ' '));
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status); // client threads must not keep the JVM alive
  }

  private int run() throws InterruptedException, IOException {
    long warmUpStarted = System.nanoTime();
    long lastSecond = warmUp();
    System.out.printf(
        Locale.ROOT,
        "READY %d %d%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - warmUpStarted),
        lastSecond);
    System.out.flush();
    awaitFile(settings.dir().resolve("go"), TimeUnit.MILLISECONDS.toNanos(1), () -> false);
    if (settings.once()) {
      return queue();
    }

    Loop measured = new Loop(settings.lockName(), /* record= */ true, settings.threads());
    // A failed thread ends the wait: the process exits at once, and the parent's window with it.
    // The parent closes its window before it writes the stop file, so a late look at the file
    // costs no measurement, while each look costs this JVM's main thread CPU inside the window
    // (at 5 ms, 159 µs per acquisition at W9 16x1 on 2 cores).
    awaitFile(
        settings.dir().resolve("stop"), STOP_POLL_NANOS, () -> measured.failure.get() != null);
    List<Section> sections = measured.stop();
    new SectionLog(settings.process(), measured.guarded.counter, sections)
        .write(settings.dir().resolve("process-" + settings.process() + ".log"));
    System.out.println("DONE " + sections.size());
    return 0;
  }

  /**
   * Takes and releases the warm-up lock until the JIT is quiet; returns the milliseconds it spent
   * compiling in the last second.
   */
  private long warmUp() throws InterruptedException {
    Loop loop =
        new Loop(
            settings.lockName() + ":warm-up",
            /* record= */ false,
            settings.once() ? Math.min(4, settings.threads()) : settings.threads());
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    long started = System.nanoTime();
    long compiled = jit.getTotalCompilationTime();
    long lastSecond = Long.MAX_VALUE;
    while (loop.failure.get() == null) {
      // The warm-up's pace: one look at the JIT per second, not a wait for an event.
      TimeUnit.NANOSECONDS.sleep(COMPILE_SAMPLE.toNanos());
      long now = jit.getTotalCompilationTime();
      lastSecond = now - compiled;
      compiled = now;
      long elapsed = System.nanoTime() - started;
      if (elapsed >= settings.maxWarmUp().toNanos()
          || (elapsed >= MIN_WARM_UP.toNanos() && lastSecond < settings.quietMillis())) {
        break;
      }
    }
    loop.stop();
    return lastSecond;
  }

  /**
   * W8's queue: every thread calls lock() once on the held lock, takes it in its turn, records its
   * section and releases it; see the class comment for what is printed.
   */
  private int queue() throws InterruptedException, IOException {
    int count = settings.threads();
    CountDownLatch asking = new CountDownLatch(count);
    CountDownLatch drained = new CountDownLatch(count);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Guarded guarded = new Guarded();
    AtomicReferenceArray<long[]> sections = new AtomicReferenceArray<>(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      Lock lock = locks.apply(settings.lockName());
      Thread thread =
          new Thread(
              () -> {
                try {
                  asking.countDown();
                  long[] section = new long[3];
                  criticalSection(lock, guarded, section, 0);
                  sections.set(index, section);
                  drained.countDown();
                } catch (Throwable e) { // every failure must reach the main thread
                  failure.compareAndSet(null, e);
                }
              },
              "w8-" + settings.process() + "-" + i);
      thread.setDaemon(true); // one still waiting at the stop must not keep the JVM alive
      thread.start();
    }
    asking.await();
    System.out.println("WAITING " + count);
    System.out.flush();
    Path stop = settings.dir().resolve("stop");
    // Polls the stop file while the queue drains: the parent's only way to end it early.
    while (drained.getCount() > 0 && !Files.exists(stop) && failure.get() == null) {
      drained.await(STOP_POLL_NANOS, TimeUnit.NANOSECONDS);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a thread failed: " + failure.get(), failure.get());
    }
    if (drained.getCount() == 0) {
      System.out.println("DRAINED");
      System.out.flush();
    }
    awaitFile(stop, STOP_POLL_NANOS, () -> false);
    List<Section> done = new ArrayList<>();
    for (int thread = 0; thread < count; thread++) {
      long[] section = sections.get(thread);
      if (section != null) {
        done.add(new Section(settings.process(), thread, section[0], section[1], section[2]));
      }
    }
    new SectionLog(settings.process(), guarded.counter, done)
        .write(settings.dir().resolve("process-" + settings.process() + ".log"));
    System.out.println("DONE " + done.size());
    return 0;
  }

  /**
   * Takes the lock, increments the counter inside, releases it, and writes when lock() was called,
   * when it returned and when unlock() was called to {@code into[at..at+2]}.
   */
  // NonAtomicVolatileUpdate: deliberately not atomic: overlapping holders lose increments
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private static void criticalSection(Lock lock, Guarded guarded, long[] into, int at) {
    long called = System.nanoTime();
    long acquired;
    long released;
    lock.lock();
    try {
      acquired = System.nanoTime();
      guarded.counter = guarded.counter + 1;
      released = System.nanoTime();
    } finally {
      lock.unlock();
    }
    into[at] = called;
    into[at + 1] = acquired;
    into[at + 2] = released;
  }

  /** Returns once {@code file} exists or {@code giveUp} is true. */
  private static void awaitFile(Path file, long pollNanos, BooleanSupplier giveUp)
      throws InterruptedException {
    while (!Files.exists(file) && !giveUp.getAsBoolean()) {
      TimeUnit.NANOSECONDS.sleep(pollNanos);
    }
  }

  /** The plain counter the lock protects; volatile only so that this process's threads see it. */
  private static final class Guarded {
    volatile long counter;
  }

  /** The process's threads taking and releasing one lock until stopped. */
  private final class Loop {
    private final List<Thread> threads = new ArrayList<>();
    private final long[][] logs;
    private final int[] sizes;
    private final Guarded guarded = new Guarded();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;

    Loop(String lockName, boolean record, int count) {
      logs = new long[count][];
      sizes = new int[count];
      for (int i = 0; i < count; i++) {
        int index = i;
        Lock lock = locks.apply(lockName);
        logs[i] = new long[record ? 3 * 4096 : 0];
        Thread thread =
            new Thread(
                () -> {
                  try {
                    turn(index, lock, record);
                  } catch (Throwable e) { // every failure must reach stop()
                    failure.compareAndSet(null, e);
                    running = false;
                  }
                },
                "w7-" + settings.process() + "-" + i);
        thread.setDaemon(true);
        threads.add(thread);
      }
      threads.forEach(Thread::start);
    }

    private void turn(int index, Lock lock, boolean record) {
      long[] log = logs[index];
      int size = 0;
      long[] scratch = new long[3];
      while (running) {
        if (!record) {
          criticalSection(lock, guarded, scratch, 0);
          continue;
        }
        if (size == log.length) {
          log = Arrays.copyOf(log, log.length * 2);
        }
        criticalSection(lock, guarded, log, size);
        size += 3;
      }
      logs[index] = log; // both published to stop() by the thread's end (join)
      sizes[index] = size;
    }

    /**
     * Stops the threads and returns their sections (none unless recorded).
     *
     * @throws IllegalStateException if a thread failed or did not stop in time
     */
    List<Section> stop() throws InterruptedException {
      running = false;
      long deadline = System.nanoTime() + STOP_GRACE.toNanos();
      for (Thread thread : threads) {
        TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(1, deadline - System.nanoTime()));
        if (thread.isAlive()) {
          throw new IllegalStateException(thread.getName() + " did not stop within " + STOP_GRACE);
        }
      }
      if (failure.get() != null) {
        throw new IllegalStateException("a thread failed: " + failure.get(), failure.get());
      }
      List<Section> sections = new ArrayList<>();
      for (int thread = 0; thread < threads.size(); thread++) {
        long[] log = logs[thread];
        for (int i = 0; i < sizes[thread]; i += 3) {
          sections.add(new Section(settings.process(), thread, log[i], log[i + 1], log[i + 2]));
        }
      }
      return sections;
    }
  }
}
