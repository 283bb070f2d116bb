package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.WardenException;
import io.lettuce.core.RedisException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * One worker process of {@code warden demo}: threads that take the lock, increment the counter
 * unsafely, record their fencing token and release, for a fixed time.
 *
 * <p>Before it says it is ready, its threads take and release the lock for {@link #WARM_UP} (with
 * nothing done inside), so that what the demo reports is the lock between warm JVMs, not their
 * first seconds of interpreted code. It speaks a line protocol with {@link Demo} (the start gate
 * keeps JVM start-up out of the measured time, and stdin closing means the demo is gone, so the
 * worker never outlives it):
 *
 * <pre>
 *   worker -> demo   READY                               connected and warmed up, waiting for GO
 *   demo -> worker   GO                                  start the clock
 *   worker -> demo   PROGRESS &lt;acquisitions&gt;             every 250 ms
 *   worker -> demo   LOST &lt;leases lost&gt; &lt;calls retried&gt;   before DONE or FAILED
 *   worker -> demo   DONE &lt;acquisitions&gt; &lt;wait p50 us&gt; &lt;p99 us&gt; &lt;max us&gt; &lt;histogram&gt;
 *   worker -> demo   FAILED &lt;message&gt;                    instead of DONE; exit status 1
 * </pre>
 */
final class DemoWorker {
  private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(250);
  // Threads that still wait for the lock this long after the run ended are stuck, not slow.
  private static final Duration DRAIN_LIMIT = Duration.ofSeconds(30);

  /** The environment variable through which the demo gives a worker the Redis URI. */
  static final String URI_VARIABLE = "WARDEN_URI";

  /** The environment variable through which the demo gives a worker the store's URI, if another. */
  static final String STORE_VARIABLE = "WARDEN_STORE_URI";

  /** How long a worker's threads take and release the lock before the worker says it is ready. */
  static final Duration WARM_UP = Duration.ofSeconds(2);

  /** How long calls may go on failing in a row (a failover under way) before a worker gives up. */
  static final Duration FAILING_LIMIT = Duration.ofSeconds(15);

  /** The pause before a failed call is tried again. */
  static final Duration RETRY_PAUSE = Duration.ofMillis(50);

  private final DistributedLock lock;
  private final LongAdder acquisitionsWarmingUp = new LongAdder();
  private final DemoKeys keys;
  private final LongAdder acquisitions = new LongAdder();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final LongAdder leasesLost = new LongAdder();
  private final LongAdder retriedCalls = new LongAdder();
  // when the calls of any thread began failing in a row; 0 after a call that succeeded
  private final AtomicLong failingSince = new AtomicLong();

  private DemoWorker(DistributedLock lock, DemoKeys keys) {
    this.lock = lock;
    this.keys = keys;
  }

  /** Runs the {@code worker} command; returns the exit status. */
  static int run(List<String> args, InputStream stdin, PrintStream out, PrintStream err)
      throws InterruptedException {
    Options options =
        Options.parse(
            "worker",
            args,
            Set.of("--uri", "--store", "--threads", "--seconds", "--lock", "--key-prefix"),
            Set.of("--cluster"));
    options.requireNoPositionals();
    // the demo hands the URIs over in the environment, not on the command line, which any user of
    // the machine can read (ps): they may hold a password
    String uri =
        options
            .optional("--uri")
            .or(() -> Optional.ofNullable(System.getenv(URI_VARIABLE)))
            .orElseThrow(
                () -> new UsageException("worker: --uri or " + URI_VARIABLE + " is required"));
    Target target =
        new Target(uri, options.flag("--cluster"), options.optional("--key-prefix").orElse(null));
    Target store =
        options
            .optional("--store")
            .or(() -> Optional.ofNullable(System.getenv(STORE_VARIABLE)))
            .map(storeUri -> new Target(storeUri, false))
            .orElse(target);
    int threads = options.intInRange("--threads", 4, 1, Demo.MAX_THREADS);
    int seconds = options.intInRange("--seconds", 10, 1, Demo.MAX_SECONDS);
    String lockName = options.string("--lock", Demo.DEFAULT_LOCK);

    BufferedReader demo = new BufferedReader(new InputStreamReader(stdin, UTF_8));
    try (Warden warden = target.connect();
        DemoKeys keys = DemoKeys.connect(store)) {
      DemoWorker worker = new DemoWorker(warden.lock(lockName), keys);
      worker.warmUp(threads);
      out.println("READY");
      out.flush();
      if (!"GO".equals(readLine(demo))) {
        err.println("warden worker: the demo went away before the start");
        return 1;
      }
      WorkerProcess.exitWhenStdinCloses(demo, err, "worker");
      return worker.runFor(threads, Duration.ofSeconds(seconds), out);
    }
  }

  /** Takes and releases the lock from {@code threads} threads for {@link #WARM_UP}. */
  private void warmUp(int threads) throws InterruptedException {
    long deadline = System.nanoTime() + WARM_UP.toNanos();
    List<Thread> warming = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread =
          new Thread(
              () -> {
                while (System.nanoTime() - deadline < 0) {
                  lock.lock();
                  try {
                    acquisitionsWarmingUp.increment();
                  } finally {
                    lock.unlock();
                  }
                }
              },
              "demo-warm-up-" + t);
      thread.setDaemon(true);
      thread.start();
      warming.add(thread);
    }
    for (Thread thread : warming) {
      thread.join();
    }
  }

  private int runFor(int threads, Duration duration, PrintStream out) throws InterruptedException {
    long deadline = System.nanoTime() + duration.toNanos();
    CountDownLatch finished = new CountDownLatch(threads);
    List<Histogram> waits = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Histogram histogram = Waits.histogram();
      waits.add(histogram);
      Thread thread =
          new Thread(
              () -> {
                try {
                  loop(deadline, histogram);
                } finally {
                  finished.countDown();
                }
              },
              "demo-thread-" + t);
      thread.setDaemon(true); // a thread stuck in lock() must not keep the process alive
      thread.start();
    }
    long drainDeadline = deadline + DRAIN_LIMIT.toNanos();
    while (!finished.await(PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)) {
      out.println("PROGRESS " + acquisitions.sum());
      if (System.nanoTime() - drainDeadline > 0) {
        failure.compareAndSet(
            null,
            new IllegalStateException(
                finished.getCount()
                    + " threads still wait for the lock "
                    + DRAIN_LIMIT.toSeconds()
                    + " s after the run ended"));
        break;
      }
    }
    out.println("PROGRESS " + acquisitions.sum());
    out.println("LOST " + leasesLost.sum() + " " + retriedCalls.sum());
    Throwable problem = failure.get();
    if (problem != null) {
      out.println("FAILED " + oneLine(problem));
      return 1;
    }
    WorkerProcess.reportDone(out, waits);
    return 0;
  }

  /**
   * Takes the lock, reads its token, increments the counter and records the token, releases, until
   * the deadline. A call that fails (a failover or a restart under way) is tried again after {@link
   * #RETRY_PAUSE}, as a service would, for up to {@link #FAILING_LIMIT} of failures in a row; an
   * {@code unlock()} that failed is called again (it finds out whether its release ran). A hold
   * whose lease was lost (its {@code unlock()} throws {@link LeaseExpiredException}) is counted and
   * reported. The store's calls are not retried: an increment whose reply was lost would count
   * twice.
   */
  private void loop(long deadline, Histogram waits) {
    try {
      while (failure.get() == null && System.nanoTime() - deadline < 0) {
        long start = System.nanoTime();
        try {
          lock.lock();
        } catch (WardenException e) {
          failed(e);
          continue;
        }
        long waited = System.nanoTime() - start;
        try {
          long token;
          try {
            token = lock.fencingToken();
          } catch (WardenException e) {
            failed(e); // nothing done under the lock yet: release it and go round again
            continue;
          }
          failingSince.set(0);
          keys.incrementUnsafely();
          keys.recordToken(token);
          waits.recordValue(TimeUnit.NANOSECONDS.toMicros(waited));
          acquisitions.increment();
        } finally {
          release();
        }
      }
    } catch (WardenException | RedisException expected) { // failing for too long: say so, briefly
      failure.compareAndSet(null, expected);
      System.err.println(
          "warden worker: " + Thread.currentThread().getName() + " stopped: " + oneLine(expected));
    } catch (RuntimeException | Error bug) {
      failure.compareAndSet(null, bug);
      bug.printStackTrace();
    }
  }

  /** Releases the hold, calling {@code unlock()} again while it fails (see {@link #loop}). */
  private void release() {
    while (true) {
      try {
        lock.unlock();
        return;
      } catch (LeaseExpiredException lost) {
        leasesLost.increment();
        System.err.println(
            "warden worker: "
                + Thread.currentThread().getName()
                + ": lease lost, reported by unlock(): "
                + lost.getMessage());
        return;
      } catch (WardenException e) {
        failed(e);
      }
    }
  }

  /**
   * Counts a failed call and pauses before the next try; rethrows it once calls have been failing
   * for {@link #FAILING_LIMIT}.
   */
  private void failed(WardenException e) {
    retriedCalls.increment();
    long now = System.nanoTime();
    failingSince.compareAndSet(0, now);
    if (now - failingSince.get() > FAILING_LIMIT.toNanos()) {
      throw e;
    }
    try {
      Thread.sleep(RETRY_PAUSE.toMillis());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns the problem and its causes on one line, for the protocol and the log. */
  private static String oneLine(Throwable problem) {
    StringBuilder line = new StringBuilder();
    int depth = 0;
    for (Throwable t = problem; t != null && depth++ < 5; t = t.getCause()) {
      if (line.length() > 0) {
        line.append(" <- ");
      }
      line.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
    }
    return line.toString().replaceAll("\\s+", " ");
  }
}
