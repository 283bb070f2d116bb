package dev.warden.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * W4: 16 readers and 1 writer share one read-write lock, each thread with a lock object of its own;
 * the writer writes two fields, readers check that they see both or neither. Measures reads and
 * writes per second and how long the writer waits among the readers (a lock that lets readers
 * starve the writer shows here).
 */
final class W4ReadWrite implements Workload {
  static final Metric READS = Metric.higher("reads_per_s", "reads/s", Metric.Unit.RATE).inChart();
  static final int READERS = 16;

  @Override
  public String id() {
    return "W4";
  }

  @Override
  public String title() {
    return "read-write: " + READERS + " readers and 1 writer on one read-write lock";
  }

  @Override
  public List<Point> points(Settings settings) {
    return List.of(
        new Point(
            READERS + "R+1W",
            Map.of("readers", READERS, "writers", 1),
            Optional.empty(),
            settings.warmUp(),
            settings.window(),
            settings.rounds(),
            W4ReadWrite::start));
  }

  /** What the writer writes: two fields that readers must never see apart. */
  private static final class Shared {
    volatile long first;
    volatile long second;
  }

  private static Trial start(Contender contender, String prefix) {
    int threads = READERS + 1;
    Lock[] locks = new Lock[threads];
    for (int i = 0; i < threads; i++) {
      var readWrite = contender.readWriteLock(prefix);
      locks[i] = i == READERS ? readWrite.writeLock() : readWrite.readLock();
    }
    Shared shared = new Shared();
    return Workers.start(
        "w4",
        threads,
        index ->
            worker -> {
              Lock lock = locks[index];
              Tally tally = worker.tally();
              boolean writer = index == READERS;
              while (worker.running()) {
                long start = System.nanoTime();
                lock.lock();
                try {
                  if (writer) {
                    tally.latencySince("writer_wait", start);
                    long next = shared.first + 1;
                    shared.first = next;
                    shared.second = next;
                  } else if (shared.second != shared.first) { // second first: it is written last
                    tally.count("torn_reads");
                  }
                } finally {
                  lock.unlock();
                }
                tally.count(writer ? "writes" : "reads");
              }
            });
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    Tally tally = measurement.tally();
    double reads = tally.inWindow("reads");
    double writes = tally.inWindow("writes");
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("reads_per_s", measurement.perSecond(reads));
    metrics.put("writes_per_s", measurement.perSecond(writes));
    metrics.putAll(measurement.latencies("writer_wait"));
    metrics.putAll(measurement.costsPer(reads + writes));
    long torn = tally.inRun("torn_reads");
    if (torn > 0) {
      problems.add(torn + " reads saw half a write: a reader and the writer held the lock at once");
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    Optional<Results.PointResult> point = targets.points().stream().findFirst();
    double p99 = point.map(p -> p.warden("writer_wait_p99_us")).orElse(Double.NaN);
    targets.add(
        "writer wait p99",
        "< 50 ms",
        Format.micros(p99),
        point.map(p -> Format.micros(p.redisson("writer_wait_p99_us"))).orElse(""),
        p99,
        Format.micros(p99),
        v -> v < 50_000);
    targets.ratio(point.map(p -> p.point().label()).orElse(READERS + "R+1W"), READS, 0.8);
    targets.exclusion("mutual exclusion held (counter/reads checked)");
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        READS,
        Metric.higher("writes_per_s", "writes/s", Metric.Unit.RATE).inChart(),
        Metric.lower("writer_wait_p50_us", "writer wait p50", Metric.Unit.MICROS),
        Metric.lower("writer_wait_p99_us", "writer wait p99", Metric.Unit.MICROS).inChart(),
        Metric.lower("writer_wait_max_us", "writer wait max", Metric.Unit.MICROS),
        Costs.COMMANDS,
        Costs.ROUND_TRIPS,
        Costs.CLIENT_CPU);
  }
}
