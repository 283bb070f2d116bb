package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeaseExpiredException;
import dev.warden.LeasedSemaphore;
import dev.warden.LockHandle;
import dev.warden.WakeUps;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.WardenStats;
import io.lettuce.core.RedisException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * One worker process of {@code warden chaos}: threads that run a random mix of Warden operations (a
 * reentrant lock and a fair lock, each through handles and through the thread-bound API, a
 * read-write lock, a semaphore, a leased semaphore, count-down latches) for a fixed time while
 * faults are injected, and log every step to a {@link ChaosLog} for {@link ChaosChecker}, with the
 * process's own pauses ({@link ChaosHeartbeat}). The plain semaphore is the current epoch's ({@link
 * ChaosEpochs}), read before each acquisition; each permit goes back to the semaphore it came from.
 *
 * <p>It speaks the line protocol of {@link DemoWorker} (READY, GO, PROGRESS, DONE, FAILED) through
 * {@link WorkerProcess}. Redis failures are expected here: each is logged and the thread goes on.
 * At the end the worker deletes its latches, then waits until its {@link Warden} holds, renews,
 * subscribes and waits for nothing, and logs a leak ({@code K}) if it does not within 10 s.
 */
final class ChaosWorker {
  static final String LOCK = "chaos-lock";
  static final String FAIR = "chaos-fair";
  static final String RW = "chaos-rw";
  static final String RW_READ = RW + "-read";
  static final String LEASED = "chaos-leased";
  static final int SEMAPHORE_PERMITS = 3;
  static final int LEASED_PERMITS = 2;
  static final Duration WATCHDOG = Duration.ofSeconds(3);
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
  static final Duration WAIT = Duration.ofSeconds(2);
  static final Duration PERMIT_LEASE = Duration.ofSeconds(3);
  private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(500);
  private static final Duration DRAIN_LIMIT = Duration.ofSeconds(60);
  private static final Duration IDLE_LIMIT = Duration.ofSeconds(10);
  private static final int RELEASE_ATTEMPTS = 20;

  private final Warden warden;
  private final ChaosLog log;
  private final int number;
  private final long seed;
  private final Path epochs;
  private final ScheduledExecutorService helper;
  private final LongAdder acquisitions = new LongAdder();

  private ChaosWorker(Warden warden, ChaosLog log, int number, long seed, Path epochs) {
    this.warden = warden;
    this.log = log;
    this.number = number;
    this.seed = seed;
    this.epochs = epochs;
    this.helper =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "chaos-count-down");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Runs the {@code chaos-worker} command; returns the exit status. */
  static int run(List<String> args, InputStream stdin, PrintStream out, PrintStream err)
      throws InterruptedException {
    Options options =
        Options.parse(
            "chaos-worker",
            args,
            Set.of(
                "--uri",
                "--log",
                "--epochs",
                "--worker",
                "--threads",
                "--seconds",
                "--seed",
                "--wake-ups"),
            Set.of("--cluster"));
    options.requireNoPositionals();
    Target target = new Target(options.required("--uri"), options.flag("--cluster"));
    Path logFile = Path.of(options.required("--log"));
    Path epochs = Path.of(options.required("--epochs"));
    int number = options.intInRange("--worker", 1, 1, Chaos.MAX_WORKERS);
    int threads = options.intInRange("--threads", 3, 1, Chaos.MAX_THREADS);
    int seconds = options.intInRange("--seconds", 60, 1, Chaos.MAX_SECONDS);
    long seed = Long.parseLong(options.required("--seed"));
    WakeUps wakeUps = WakeUps.valueOf(options.string("--wake-ups", WakeUps.AUTO.name()));

    BufferedReader driver = new BufferedReader(new InputStreamReader(stdin, UTF_8));
    Warden.Builder builder =
        Warden.builder().watchdogTimeout(WATCHDOG).commandTimeout(COMMAND_TIMEOUT).wakeUps(wakeUps);
    builder =
        target.cluster()
            ? builder.cluster(target.seeds().toArray(String[]::new))
            : builder.uri(target.uri());
    // the mode build() takes (AUTO decides from the same checks), for the driver to print
    WakeUps chosen = builder.check().wakeUps();
    try (Warden warden = builder.build();
        ChaosLog log = ChaosLog.create(logFile)) {
      ChaosWorker worker = new ChaosWorker(warden, log, number, seed, epochs);
      out.println("READY " + chosen);
      out.flush();
      try {
        if (!"GO".equals(driver.readLine())) {
          err.println("warden chaos-worker: the driver went away before the start");
          return 1;
        }
      } catch (IOException e) {
        return 1;
      }
      WorkerProcess.exitWhenStdinCloses(driver, err, "chaos-worker");
      ChaosHeartbeat heartbeat = ChaosHeartbeat.start(log);
      try {
        return worker.runFor(threads, Duration.ofSeconds(seconds), out);
      } finally {
        heartbeat.stop();
      }
    }
  }

  private int runFor(int threads, Duration duration, PrintStream out) throws InterruptedException {
    long deadline = System.nanoTime() + duration.toNanos();
    CountDownLatch finished = new CountDownLatch(threads);
    List<Histogram> waits = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Histogram histogram = Waits.histogram();
      waits.add(histogram);
      int index = t;
      Thread thread =
          new Thread(
              () -> {
                try {
                  loop(index, deadline, histogram);
                } finally {
                  finished.countDown();
                }
              },
              "chaos-thread-" + t);
      thread.setDaemon(true);
      thread.start();
    }
    long drainDeadline = deadline + DRAIN_LIMIT.toNanos();
    while (!finished.await(PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)) {
      out.println("PROGRESS " + acquisitions.sum());
      if (System.nanoTime() - drainDeadline > 0) {
        out.println("FAILED " + finished.getCount() + " threads still busy after the run");
        return 1;
      }
    }
    helper.shutdownNow();
    for (int t = 0; t < threads; t++) {
      deleteLatch(latchName(t));
    }
    checkIdle();
    out.println("PROGRESS " + acquisitions.sum());
    WorkerProcess.reportDone(out, waits);
    return 0;
  }

  private void loop(int thread, long deadline, Histogram waits) {
    Random random = new Random(seed * 1_000_003L + number * 1_009L + thread);
    long sequence = 0;
    while (System.nanoTime() - deadline < 0) {
      String holder = "w" + number + "." + thread + "." + sequence++;
      int operation = random.nextInt(8);
      try {
        switch (operation) {
          case 0 -> handleSection(LOCK, warden.lock(LOCK), holder, random, waits);
          case 1 -> threadBoundSection(LOCK, warden.lock(LOCK), holder, random, waits);
          case 2 -> {
            // a handle waits without taking direct grants; a thread-bound wait takes them
            if (random.nextBoolean()) {
              handleSection(FAIR, warden.fairLock(FAIR), holder, random, waits);
            } else {
              threadBoundSection(FAIR, warden.fairLock(FAIR), holder, random, waits);
            }
          }
          case 3 -> handleSection(RW, warden.readWriteLock(RW).writeLock(), holder, random, waits);
          case 4 -> readSection(holder, random, waits);
          case 5 -> semaphore(holder, random, waits);
          case 6 -> leasedSemaphore(holder, random, waits);
          default -> latch(thread, random);
        }
      } catch (WardenException | RedisException e) { // Redis failing: expected under faults
        log.write("E", operation, e.getClass().getSimpleName() + ":" + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error bug) {
        log.write("U", operation, bug.toString());
        bug.printStackTrace();
      }
    }
  }

  /** A section under a lock handle: wait, write twice with the token, release. */
  private void handleSection(
      String object, DistributedLock lock, String holder, Random random, Histogram waits)
      throws InterruptedException {
    long start = System.nanoTime();
    Optional<LockHandle> acquired;
    try {
      acquired = lock.tryAcquire(WAIT);
    } catch (WardenException e) {
      log.write("A", object, start, WAIT.toMillis(), "error", holder);
      throw e;
    }
    log.write(
        "A", object, start, WAIT.toMillis(), acquired.isPresent() ? "got" : "timeout", holder);
    if (acquired.isEmpty()) {
      return;
    }
    counted(waits, start);
    LockHandle handle = acquired.get();
    long token = handle.fencingToken();
    log.write("T", object, holder, token);
    handle.leaseLost().thenRun(() -> log.write("L", object, holder));
    int accesses = protectedWork("W", object, holder, token, random);
    log.write("R", object, holder, close(handle), accesses);
  }

  /**
   * Releases a handle; after a failure (the release may or may not have run) asks again, as the API
   * documents, so that the hold does not stay registered in this client. Returns {@code ok}, {@code
   * lost} (the lease had been lost) or {@code error} (a failure came first, then it was released or
   * found lost).
   */
  private static String close(LockHandle handle) throws InterruptedException {
    String outcome = "ok";
    for (int attempt = 1; ; attempt++) {
      try {
        handle.close();
        return outcome;
      } catch (LeaseExpiredException e) {
        return "lost";
      } catch (WardenException e) {
        outcome = "error";
        if (attempt == RELEASE_ATTEMPTS) {
          return outcome;
        }
        Thread.sleep(500); // Redis is failing now; ask again after a moment
      }
    }
  }

  /** A reentrant section through the thread-bound API: two holds, one token. */
  private void threadBoundSection(
      String object, DistributedLock lock, String holder, Random random, Histogram waits)
      throws InterruptedException {
    long start = System.nanoTime();
    boolean acquired;
    try {
      acquired = lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (WardenException e) {
      log.write("A", object, start, WAIT.toMillis(), "error", holder);
      throw e;
    }
    log.write("A", object, start, WAIT.toMillis(), acquired ? "got" : "timeout", holder);
    if (!acquired) {
      return;
    }
    counted(waits, start);
    String outcome = "ok";
    int accesses = 0;
    try {
      long token = lock.fencingToken();
      log.write("T", object, holder, token);
      if (lock.tryLock(0, TimeUnit.MILLISECONDS)) { // reentrant: the same hold, the same token
        try {
          accesses = protectedWork("W", object, holder, token, random);
        } finally {
          outcome = unlock(lock, outcome);
        }
      }
    } catch (IllegalMonitorStateException lostBeforeTheToken) {
      outcome = "lost";
    } finally {
      outcome = unlock(lock, outcome);
      log.write("R", object, holder, outcome, accesses);
    }
  }

  /** Releases one hold, asking again after a failure; see {@link #close(LockHandle)}. */
  private static String unlock(DistributedLock lock, String outcome) throws InterruptedException {
    String result = outcome;
    for (int attempt = 1; ; attempt++) {
      try {
        lock.unlock();
        return result;
      } catch (IllegalMonitorStateException e) { // LeaseExpiredException, or no hold left
        return "lost";
      } catch (WardenException e) {
        result = result.equals("lost") ? result : "error";
        if (attempt == RELEASE_ATTEMPTS) {
          return result;
        }
        Thread.sleep(500); // Redis is failing now; ask again after a moment
      }
    }
  }

  /**
   * A read section: shared; its reads of the protected resource are logged with its token, as the
   * writers' writes are, so that the checker replays them against the write sections.
   */
  private void readSection(String holder, Random random, Histogram waits)
      throws InterruptedException {
    DistributedLock read = warden.readWriteLock(RW).readLock();
    long start = System.nanoTime();
    Optional<LockHandle> acquired;
    try {
      acquired = read.tryAcquire(WAIT);
    } catch (WardenException e) {
      log.write("A", RW_READ, start, WAIT.toMillis(), "error", holder);
      throw e;
    }
    log.write(
        "A", RW_READ, start, WAIT.toMillis(), acquired.isPresent() ? "got" : "timeout", holder);
    if (acquired.isEmpty()) {
      return;
    }
    counted(waits, start);
    LockHandle handle = acquired.get();
    long token = handle.fencingToken();
    log.write("T", RW_READ, holder, token);
    handle.leaseLost().thenRun(() -> log.write("L", RW_READ, holder));
    int accesses = protectedWork("V", RW, holder, token, random);
    log.write("R", RW_READ, holder, close(handle), accesses);
  }

  /**
   * A permit of the current epoch's plain semaphore, given back to that semaphore whatever the
   * epoch is by then.
   */
  private void semaphore(String holder, Random random, Histogram waits)
      throws InterruptedException {
    String name = ChaosEpochs.semaphore(ChaosEpochs.read(epochs)); // read before the call starts
    DistributedSemaphore semaphore = warden.semaphore(name);
    semaphore.trySetPermits(SEMAPHORE_PERMITS); // again after a fault that lost Redis's data
    long start = System.nanoTime();
    boolean acquired;
    try {
      acquired = semaphore.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (WardenException e) {
      log.write("A", name, start, WAIT.toMillis(), "error", holder);
      throw e;
    }
    log.write("A", name, start, WAIT.toMillis(), acquired ? "got" : "timeout", holder);
    if (!acquired) {
      return;
    }
    counted(waits, start);
    log.write("P", name, holder);
    Thread.sleep(random.nextInt(40));
    long releasing = System.nanoTime(); // the permit is surely held until here
    try {
      semaphore.release(); // not asked again after a failure: a second release would add a permit
      log.writeAt(releasing, "Q", name, holder, "ok");
    } catch (WardenException e) {
      log.writeAt(releasing, "Q", name, holder, "error");
    }
  }

  private void leasedSemaphore(String holder, Random random, Histogram waits)
      throws InterruptedException {
    LeasedSemaphore semaphore = warden.leasedSemaphore(LEASED);
    semaphore.trySetPermits(LEASED_PERMITS);
    long start = System.nanoTime();
    String permit;
    try {
      permit =
          semaphore.tryAcquire(WAIT.toMillis(), PERMIT_LEASE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (WardenException e) {
      log.write("A", LEASED, start, WAIT.toMillis(), "error", holder);
      throw e;
    }
    log.write("A", LEASED, start, WAIT.toMillis(), permit != null ? "got" : "timeout", holder);
    if (permit == null) {
      return;
    }
    counted(waits, start);
    log.write("P", LEASED, holder);
    Thread.sleep(random.nextInt(40));
    long releasing = System.nanoTime(); // the permit is surely held until here
    String outcome = "ok";
    for (int attempt = 1; ; attempt++) {
      try { // asked again after a failure: releasing one permit id twice frees it once
        if (!semaphore.tryRelease(permit)) {
          outcome = outcome.equals("ok") ? "lost" : outcome;
        }
        break;
      } catch (WardenException e) {
        outcome = "error";
        if (attempt == RELEASE_ATTEMPTS) {
          break;
        }
        Thread.sleep(500); // Redis is failing now; ask again after a moment
      }
    }
    log.writeAt(releasing, "Q", LEASED, holder, outcome);
  }

  /** Sets a latch of this thread to 1, counts it down from another thread, awaits it. */
  private void latch(int thread, Random random) throws InterruptedException {
    DistributedCountDownLatch latch = warden.countDownLatch(latchName(thread));
    if (!latch.trySetCount(1)) { // left set by a fault (an older snapshot, a failed count-down)
      latch.delete();
      if (!latch.trySetCount(1)) {
        return;
      }
    }
    var unused =
        helper.schedule(
            () -> {
              try {
                latch.countDown();
              } catch (WardenException | RedisException e) {
                log.write("E", "countDown", e.getClass().getSimpleName() + ":" + e.getMessage());
              }
            },
            random.nextInt(50),
            TimeUnit.MILLISECONDS);
    long start = System.nanoTime();
    String object = "chaos-latch";
    try {
      boolean opened = latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      log.write("A", object, start, WAIT.toMillis(), opened ? "got" : "timeout");
    } catch (WardenException e) {
      log.write("A", object, start, WAIT.toMillis(), "error");
      throw e;
    }
  }

  private String latchName(int thread) {
    return "chaos-latch-" + number + "-" + thread;
  }

  /** Deletes a latch after the run, retrying for a while: a fault may have just ended. */
  private void deleteLatch(String name) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        warden.countDownLatch(name).delete();
        return;
      } catch (WardenException | RedisException e) {
        if (attempt == 10) {
          log.write("K", "latch-not-deleted:" + name);
          return;
        }
        Thread.sleep(1000); // Redis is recovering from the last fault; try again shortly
      }
    }
  }

  /**
   * The work done under a lock: 2 to 5 accesses to the protected resource ({@code W} writes, {@code
   * V} reads), the first as the section starts and the last as it ends, each logged with the
   * section's token and its sequence number in the section. Returns how many it made.
   */
  private int protectedWork(String kind, String object, String holder, long token, Random random)
      throws InterruptedException {
    int accesses = 2 + random.nextInt(4);
    int work = random.nextInt(40);
    for (int sequence = 1; sequence <= accesses; sequence++) {
      if (sequence > 1) {
        Thread.sleep(work / (accesses - 1)); // the work done under the lock, between accesses
      }
      log.write(kind, object, holder, token, sequence);
    }
    return accesses;
  }

  private void counted(Histogram waits, long start) {
    waits.recordValue(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
    acquisitions.increment();
  }

  /** Logs a leak unless this instance is idle within {@link #IDLE_LIMIT}. */
  private void checkIdle() throws InterruptedException {
    long deadline = System.nanoTime() + IDLE_LIMIT.toNanos();
    WardenStats stats = warden.stats();
    while (!idle(stats) && System.nanoTime() - deadline < 0) {
      Thread.sleep(100); // polls the client's own counters, bounded by IDLE_LIMIT
      stats = warden.stats();
    }
    log.write(idle(stats) ? "I" : "K", stats.toString());
  }

  private static boolean idle(WardenStats stats) {
    return stats.holds() == 0
        && stats.renewedHolds() == 0
        && !stats.leaseKeeperRunning()
        && stats.subscriptions() == 0
        && stats.acquisitions() == 0
        && stats.parkedWaiters() == 0;
  }
}
