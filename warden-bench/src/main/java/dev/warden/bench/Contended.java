package dev.warden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * W2 and W3: T threads contend for one lock (W2 the reentrant lock, W3 the fair lock), each with a
 * lock object of its own, and increment a plain shared counter while they hold it. Measures
 * acquisitions per second and how long lock() waited; checks that the counter equals the
 * acquisitions (a lost increment means two holders at once) and records the longest stretch without
 * an acquisition (a stall: a missed wake-up waiting for a re-check or a lease).
 */
final class Contended implements Workload {
  static final Metric ACQUISITIONS =
      Metric.higher("acquisitions_per_s", "acquisitions/s", Metric.Unit.RATE).inChart();
  static final Metric WAIT_P99 =
      Metric.lower("wait_p99_us", "wait p99", Metric.Unit.MICROS).inChart();
  static final List<Integer> THREADS = List.of(2, 8, 32);

  /**
   * W3's "no stall": the longest stretch without an acquisition stays below Warden's re-check
   * interval.
   */
  static final double STALL_MICROS = 200_000;

  /** W3's "independent of waiters": commands per acquisition at T=32 within this factor of T=2. */
  static final double WAITER_COST_TOLERANCE = 1.25;

  private final String id;
  private final boolean fair;

  private Contended(String id, boolean fair) {
    this.id = id;
    this.fair = fair;
  }

  /** Returns W2, on the reentrant lock. */
  static Contended reentrant() {
    return new Contended("W2", false);
  }

  /** Returns W3, on the fair lock. */
  static Contended fair() {
    return new Contended("W3", true);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String title() {
    return "contended: T threads on one "
        + (fair ? "fair " : "")
        + "lock, incrementing a plain counter";
  }

  @Override
  public List<Point> points(Settings settings) {
    return Point.perThreadCount(
        THREADS,
        Map.of("fair", fair),
        settings,
        threads -> (contender, prefix) -> start(contender, prefix, threads));
  }

  /**
   * The state the lock protects. Volatile only so that threads of this JVM see each other's writes
   * without relying on the lock; the increment stays a read and a separate write.
   */
  private static final class Guarded {
    volatile long counter;
    volatile long lastAcquiredNanos;
  }

  // NonAtomicVolatileUpdate: the counter is deliberately not atomic: overlapping holders lose
  // increments
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private Trial start(Contender contender, String prefix, int threads) {
    List<Lock> locks = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      locks.add(fair ? contender.fairLock(prefix) : contender.lock(prefix));
    }
    Guarded guarded = new Guarded();
    return Workers.start(
            id.toLowerCase(java.util.Locale.ROOT),
            threads,
            index ->
                worker -> {
                  Lock lock = locks.get(index);
                  Tally tally = worker.tally();
                  while (worker.running()) {
                    long start = System.nanoTime();
                    lock.lock();
                    try {
                      long acquired = tally.latencySince("wait", start);
                      long previous = guarded.lastAcquiredNanos;
                      if (previous != 0) {
                        tally.latency("gap", previous, acquired);
                      }
                      guarded.lastAcquiredNanos = acquired;
                      // Deliberately not atomic: overlapping holders lose increments.
                      guarded.counter = guarded.counter + 1;
                      tally.count("acquisitions");
                    } finally {
                      lock.unlock();
                    }
                  }
                })
        .whenFinished(tally -> tally.set("counter", guarded.counter));
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    Tally tally = measurement.tally();
    double acquisitions = tally.inWindow("acquisitions");
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("acquisitions_per_s", measurement.perSecond(acquisitions));
    metrics.putAll(measurement.latencies("wait"));
    metrics.put(
        "longest_gap_us",
        acquisitions == 0 ? Double.NaN : (double) tally.histogram("gap").getMaxValue());
    metrics.putAll(measurement.costsPer(acquisitions));
    long counter = tally.inRun("counter");
    long acquired = tally.inRun("acquisitions");
    metrics.put("counter_matches", counter == acquired ? 1.0 : 0.0);
    if (counter != acquired) {
      problems.add(
          "counter is " + counter + " after " + acquired + " acquisitions: two holders at once");
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    if (!fair) {
      targets.ratio("T=32", ACQUISITIONS, 2.0);
      targets.ratio("T=32", WAIT_P99, 0.25);
      targets.exclusion("mutual exclusion held (counter/reads checked)");
      return;
    }
    targets.versus("W2", ACQUISITIONS, 0.8, "T");
    Optional<Results.PointResult> few = targets.point("T=2");
    Optional<Results.PointResult> many = targets.point("T=32");
    double growth =
        few.isPresent() && many.isPresent()
            ? many.get().warden("cmds_per_op") / few.get().warden("cmds_per_op")
            : Double.NaN;
    targets.addRatio(
        "cmds/acquisition at T=32 vs T=2",
        "<= " + Format.ratio(WAITER_COST_TOLERANCE),
        many.map(p -> Format.number(p.warden("cmds_per_op"))).orElse("n/a"),
        few.map(p -> Format.number(p.warden("cmds_per_op"))).orElse("n/a") + " at T=2",
        growth,
        WAITER_COST_TOLERANCE,
        false);
    double longestGap = targets.worstWarden("longest_gap_us", true);
    targets.add(
        "no stall: longest gap between acquisitions (every T)",
        "< " + Format.micros(STALL_MICROS),
        Format.micros(longestGap),
        "",
        longestGap,
        Format.micros(longestGap),
        v -> v < STALL_MICROS);
    targets.exclusion("mutual exclusion held (counter/reads checked)");
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        ACQUISITIONS,
        Metric.lower("wait_p50_us", "wait p50", Metric.Unit.MICROS),
        WAIT_P99,
        Metric.lower("wait_max_us", "wait max", Metric.Unit.MICROS),
        Metric.lower("longest_gap_us", "longest gap", Metric.Unit.MICROS),
        Costs.COMMANDS,
        Costs.SCRIPTS,
        Costs.ROUND_TRIPS,
        Costs.CLIENT_CPU);
  }
}
