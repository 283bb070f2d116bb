package dev.warden.bench;

import dev.warden.testkit.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * W8, a deep queue: 100 and 1,000 waiters, in one worker JVM and across 4, call lock() on a lock
 * that another client (in the benchmark's JVM) holds throughout the window. Measures what waiting
 * costs: Redis commands, scripts and round trips per second, Redis's CPU and the waiters' JVMs'
 * CPU. Then the holder releases and every waiter takes the lock once, in turn: the drain rate
 * (waiters per second from the release to the last acquisition) and the first waiter's delay. Every
 * section, the holder's included, goes on one timeline that must show no overlap.
 *
 * <p>Client CPU is the waiters' JVMs' only, and the holder renews nothing during a point (its
 * watchdog lease is {@link Holder#HOLDER_WATCHDOG}): what is counted while waiting is the waiters'.
 */
final class W8DeepQueue implements Workload {
  static final Metric COMMANDS =
      Metric.lower("cmds_per_s", "Redis cmds/s while waiting", Metric.Unit.RATE).inChart();
  static final Metric CLIENT_CPU =
      Metric.lower("client_cpu_pct", "client CPU while waiting", Metric.Unit.PERCENT).inChart();
  static final Metric DRAIN =
      Metric.higher("drain_per_s", "drain: acquisitions/s", Metric.Unit.RATE).inChart();
  static final List<Integer> WAITERS = List.of(100, 1_000);
  static final List<Integer> PROCESSES = List.of(1, 4);

  /** The longest the queue may take to drain before the trial gives up on the rest. */
  private static final Duration DRAIN_LIMIT = Duration.ofMinutes(2);

  @Override
  public String id() {
    return "W8";
  }

  @Override
  public String title() {
    return "deep queue: waiters in 1 or 4 JVMs on a lock held throughout, then drained";
  }

  /** Returns a point's label: {@code 1,000 in 4 JVMs}. */
  static String label(int waiters, int processes) {
    return Format.number(waiters) + " in " + processes + (processes == 1 ? " JVM" : " JVMs");
  }

  @Override
  public List<Point> points(Settings settings) {
    Duration maxWarmUp = CrossProcess.maxWarmUp(settings);
    List<Point> points = new ArrayList<>();
    for (int processes : PROCESSES) {
      for (int waiters : WAITERS) {
        if (settings.quick() && (waiters == WAITERS.get(0)) != (processes == 1)) {
          continue; // a quick run: 100 in 1 JVM and 1,000 in 4 only
        }
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("waiters", waiters);
        parameters.put("processes", processes);
        parameters.put("max_jit_warm_up_s", maxWarmUp.toSeconds());
        points.add(
            new Point(
                label(waiters, processes),
                parameters,
                Optional.empty(),
                settings.warmUp(), // the waiters settle in the queue before the window
                settings.window(),
                1, // a queue drains once: one round per library
                new Launch(waiters, processes, maxWarmUp)));
      }
    }
    return points;
  }

  /** Starts one point: the holder, then the waiters' JVMs. */
  private record Launch(int waiters, int processes, Duration maxWarmUp) implements Point.Launcher {
    @Override
    public Trial launch(Library library, String uri, String keyPrefix) throws InterruptedException {
      Holder holder = Holder.take(library, uri, keyPrefix);
      WorkerJvms workers;
      try {
        workers =
            WorkerJvms.launch(
                library,
                false,
                uri,
                processes,
                waiters / processes,
                keyPrefix,
                CrossProcess.QUIET_MILLIS,
                maxWarmUp,
                /* once= */ true);
      } catch (RuntimeException e) {
        holder.release();
        throw e;
      }
      try {
        for (JvmProcess worker : workers.processes()) {
          worker.awaitLine("WAITING", Duration.ofSeconds(60));
        }
      } catch (IllegalStateException e) {
        holder.release();
        workers.finish(Duration.ofSeconds(30));
        throw new BenchException("a waiter process did not start waiting: " + e.getMessage(), e);
      }
      return new Queue(holder, workers, processes);
    }

    /** Returns the longest warm-up and a few seconds to start the JVMs. */
    @Override
    public Duration setUp() {
      return maxWarmUp.plusSeconds(5);
    }
  }

  /**
   * The client that holds the lock, on a thread of its own (both libraries' locks belong to the
   * thread that took them), until {@link #release}.
   */
  private static final class Holder {
    /**
     * The holder's watchdog lease, for both libraries: long enough that neither renews within a
     * point (a renewal every third of it), so that the commands counted while waiting are the
     * waiters' alone. With the default 30 s, each holder renewed every 10 s, inside a 5 s window
     * about half the time, and the window counted it as the waiters'.
     */
    static final Duration HOLDER_WATCHDOG = Duration.ofMinutes(10);

    private final Contender client;
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicLong acquiredAt = new AtomicLong();
    private final AtomicLong releasedAt = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private Holder(Contender client) {
      this.client = client;
    }

    static Holder take(Library library, String uri, String lockName) throws InterruptedException {
      Holder holder = new Holder(library.connect(uri, Optional.of(HOLDER_WATCHDOG)));
      Lock lock = holder.client.lock(lockName);
      CountDownLatch held = new CountDownLatch(1);
      Thread thread =
          new Thread(
              () -> {
                try {
                  lock.lock();
                  try {
                    holder.acquiredAt.set(System.nanoTime());
                    held.countDown();
                    holder.release.await();
                    holder.releasedAt.set(System.nanoTime());
                  } finally {
                    lock.unlock();
                  }
                } catch (Throwable e) { // the trial reports it
                  holder.failure.compareAndSet(null, e);
                  held.countDown();
                } finally {
                  holder.released.countDown();
                }
              },
              "bench-w8-holder");
      thread.setDaemon(true);
      thread.start();
      held.await();
      if (holder.failure.get() != null) {
        holder.client.close();
        throw new BenchException("the holder could not take the lock: " + holder.failure.get());
      }
      return holder;
    }

    /** Releases the lock; returns when unlock() was called, on this machine's monotonic clock. */
    long release() throws InterruptedException {
      release.countDown();
      released.await(30, TimeUnit.SECONDS);
      client.close();
      if (failure.get() != null) {
        throw new BenchException("the holder failed: " + failure.get(), failure.get());
      }
      return releasedAt.get();
    }

    SectionLog section(int process) {
      return new SectionLog(
          process,
          1,
          List.of(
              new SectionLog.Section(
                  process, 0, acquiredAt.get(), acquiredAt.get(), releasedAt.get())));
    }
  }

  /** One point's trial: the window is the wait; finishing releases the lock and drains. */
  private static final class Queue implements Trial {
    private final Holder holder;
    private final WorkerJvms workers;
    private final int processes;

    Queue(Holder holder, WorkerJvms workers, int processes) {
      this.holder = holder;
      this.workers = workers;
      this.processes = processes;
    }

    @Override
    public void await(Duration duration) throws InterruptedException {
      workers.await(duration);
    }

    @Override
    public void openWindow() {
      workers.openWindow();
    }

    @Override
    public void closeWindow() {
      workers.closeWindow();
    }

    @Override
    public Tally finish(Duration grace) throws InterruptedException {
      workers.closeWindow();
      long releasedAt;
      boolean drained = true;
      try {
        releasedAt = holder.release();
        long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
        for (JvmProcess worker : workers.processes()) {
          try {
            worker.awaitLine(
                "DRAINED", Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
          } catch (IllegalStateException notDrained) {
            drained = false; // counted below from the sections
          }
        }
      } catch (RuntimeException e) {
        workers.finish(grace);
        throw e;
      }
      workers.addSections(holder.section(processes));
      Tally tally = workers.finish(grace);
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      long acquired = 0;
      for (SectionLog log : workers.logs().subList(0, processes)) {
        for (SectionLog.Section section : log.sections()) {
          first = Math.min(first, section.acquiredAt());
          last = Math.max(last, section.acquiredAt());
          acquired++;
        }
      }
      tally.set("drained", acquired);
      tally.set("drain_complete", drained ? 1 : 0);
      if (acquired > 0) {
        tally.set("first_after_release_ns", Math.max(0, first - releasedAt));
        tally.set("drain_ns", Math.max(1, last - releasedAt));
      }
      return tally;
    }
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    Tally tally = measurement.tally();
    RedisStats.Delta redis = measurement.redis();
    double seconds = measurement.seconds();
    Map<String, Object> parameters = measurement.point().parameters();
    double waiters = ((Number) parameters.get("waiters")).doubleValue();
    double processes = ((Number) parameters.get("processes")).doubleValue();
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("cmds_per_s", redis.commands() / seconds);
    metrics.put("scripts_per_s", redis.scripts() / seconds);
    metrics.put("round_trips_per_s", redis.roundTrips() / seconds);
    metrics.put("cmds_per_s_per_client", redis.commands() / seconds / processes);
    metrics.put("cmds_per_s_per_waiter", redis.commands() / seconds / waiters);
    metrics.put("redis_cpu_pct", redis.cpuSeconds() / seconds * 100);
    metrics.put(
        "client_cpu_pct",
        tally.inRun("worker_cpu_unknown") > 0
            ? Double.NaN
            : tally.inRun("worker_cpu_ns") / 1e9 / seconds * 100);
    long drained = tally.inRun("drained");
    long drainNanos = tally.inRun("drain_ns");
    metrics.put("drained_pct", 100.0 * drained / waiters);
    metrics.put("drain_per_s", drainNanos == 0 ? Double.NaN : drained / (drainNanos / 1e9));
    metrics.put("drain_us", drainNanos == 0 ? Double.NaN : drainNanos / 1e3);
    metrics.put(
        "first_after_release_us",
        drained == 0 ? Double.NaN : tally.inRun("first_after_release_ns") / 1e3);
    long overlaps = tally.inRun("overlaps");
    metrics.put("overlaps", (double) overlaps);
    if (overlaps > 0 || tally.inRun("lost_increments") > 0) {
      problems.add(
          "OVERLAP: "
              + overlaps
              + " critical sections began before another had ended, "
              + tally.inRun("lost_increments")
              + " increments lost: two holders at once");
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    for (int processes : PROCESSES) {
      for (int waiters : WAITERS) {
        String label = label(waiters, processes);
        Optional<Results.PointResult> point = targets.point(label);
        // Issue 21: at most Redisson's commands plus 1 per second per lock per client.
        double excess =
            point.map(p -> p.warden(COMMANDS.key()) - p.redisson(COMMANDS.key())).orElse(Double.NaN)
                - processes;
        targets.add(
            label + " " + COMMANDS.label(),
            "<= Redisson's + " + processes + "/s (1 per lock per client)",
            point.map(p -> p.sample(Library.WARDEN).format(COMMANDS)).orElse("not run"),
            point.map(p -> p.sample(Library.REDISSON).format(COMMANDS)).orElse("not run"),
            excess,
            Double.isNaN(excess) ? "n/a" : Format.number(excess + processes) + "/s over",
            v -> v <= 0);
        targets.ratio(label, CLIENT_CPU, 1.0);
        targets.ratio(label, DRAIN, 1.0);
      }
      // ... the same at 100 and 1,000 waiters: no more than 1 per second per client apart.
      Optional<Results.PointResult> few = targets.point(label(WAITERS.get(0), processes));
      Optional<Results.PointResult> many = targets.point(label(WAITERS.get(1), processes));
      double growth =
          few.isPresent() && many.isPresent()
              ? many.get().warden(COMMANDS.key()) - few.get().warden(COMMANDS.key())
              : Double.NaN;
      targets.add(
          "cmds/s while waiting, 1,000 vs 100 waiters in " + processes + " JVM(s)",
          "at most " + processes + "/s more",
          many.map(p -> p.sample(Library.WARDEN).format(COMMANDS)).orElse("not run"),
          few.map(p -> p.sample(Library.WARDEN).format(COMMANDS) + " at 100").orElse("not run"),
          growth,
          Double.isNaN(growth) ? "n/a" : "+" + Format.number(growth) + "/s",
          v -> v <= processes);
    }
    targets.exclusion("no overlap of critical sections (holder and waiters)");
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        COMMANDS,
        Metric.lower("scripts_per_s", "scripts/s while waiting", Metric.Unit.RATE),
        Metric.lower("round_trips_per_s", "round trips/s while waiting", Metric.Unit.RATE),
        Metric.lower("cmds_per_s_per_client", "cmds/s per client", Metric.Unit.NUMBER),
        Metric.lower("redis_cpu_pct", "Redis CPU while waiting", Metric.Unit.PERCENT),
        CLIENT_CPU,
        DRAIN,
        Metric.lower("drain_us", "drain: all waiters served in", Metric.Unit.MICROS),
        Metric.lower(
            "first_after_release_us", "first acquisition after release", Metric.Unit.MICROS),
        Metric.higher("drained_pct", "waiters served", Metric.Unit.PERCENT),
        CrossProcess.OVERLAPS);
  }
}
