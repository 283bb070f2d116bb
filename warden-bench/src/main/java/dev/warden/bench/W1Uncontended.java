package dev.warden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * W1: T threads, each on a lock of its own, take and release it as fast as they can. Measures
 * lock()+unlock() pairs per second, the latency of one pair, and what a pair costs Redis and the
 * client: the price of a lock nobody else wants.
 */
final class W1Uncontended implements Workload {
  static final Metric PAIRS = Metric.higher("pairs_per_s", "pairs/s", Metric.Unit.RATE).inChart();
  static final List<Integer> THREADS = List.of(1, 4, 16, 64);

  @Override
  public String id() {
    return "W1";
  }

  @Override
  public String title() {
    return "uncontended: T threads, each on its own lock, lock()+unlock() pairs";
  }

  @Override
  public List<Point> points(Settings settings) {
    return Point.perThreadCount(
        THREADS,
        Map.of(),
        settings,
        threads -> (contender, prefix) -> start(contender, prefix, threads));
  }

  // LockNotBeforeTry: the measured pair: unlock() follows lock() at once, and a failure ends the
  // trial
  @SuppressWarnings("LockNotBeforeTry")
  private static Trial start(Contender contender, String prefix, int threads) {
    List<Lock> locks = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      locks.add(contender.lock(prefix + ":" + i));
    }
    return Workers.start(
        "w1",
        threads,
        index ->
            worker -> {
              Lock lock = locks.get(index);
              Tally tally = worker.tally();
              while (worker.running()) {
                long start = System.nanoTime();
                lock.lock();
                lock.unlock();
                tally.latencySince("pair", start);
                tally.count("pairs");
              }
            });
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    double pairs = measurement.tally().inWindow("pairs");
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("pairs_per_s", measurement.perSecond(pairs));
    metrics.putAll(measurement.latencies("pair"));
    metrics.putAll(measurement.costsPer(pairs));
    return metrics;
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        PAIRS,
        Metric.lower("pair_p50_us", "pair p50", Metric.Unit.MICROS),
        Metric.lower("pair_p99_us", "pair p99", Metric.Unit.MICROS).inChart(),
        Costs.COMMANDS,
        Costs.SCRIPTS,
        Costs.ROUND_TRIPS,
        Costs.CLIENT_CPU,
        Costs.REDIS_CPU);
  }
}
