package dev.warden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * W10: W1 and W7 on a Redis Cluster of 3 masters with a replica each (the testkit's {@code
 * RedisCluster}, or the one {@code --cluster-uri} names), Warden's cluster client against
 * Redisson's cluster mode. W1 at 1 and 16 threads, each on its own lock (the locks spread over the
 * shards), and W7 4x1, four worker JVMs on one lock (one shard). Redis's work is the masters'
 * (commands, CPU), which compares with one server's; every node's CPU, replicas included, is shown
 * beside it.
 *
 * <p>Metrics use W1's and W7's names where they share none: an operation is a lock()+unlock() pair
 * (W1) or an acquisition (W7), its latency the pair's or the wait.
 */
final class W10Cluster implements Workload {
  static final Metric OPS = Metric.higher("ops_per_s", "ops/s", Metric.Unit.RATE).inChart();
  static final Metric REDIS_ALL_CPU =
      Metric.lower("redis_all_cpu_us_per_op", "Redis CPU/op, all nodes", Metric.Unit.MICROS);

  /** W10: Redis CPU per W1 pair on the cluster's masters at most this multiple of one server's. */
  static final double CLUSTER_CPU_TOLERANCE = 1.2;

  private static final List<Integer> THREADS = List.of(1, 16);
  private static final CrossProcess.Shape SHAPE = new CrossProcess.Shape(4, 1);

  @Override
  public String id() {
    return "W10";
  }

  @Override
  public String title() {
    return "Redis Cluster (3 masters + 3 replicas): W1 and W7 on the cluster, cluster clients";
  }

  @Override
  public List<Point> points(Settings settings) {
    List<Point> points = new ArrayList<>();
    for (int threads : settings.quick() ? List.of(16) : THREADS) {
      Map<String, Object> parameters = new LinkedHashMap<>();
      parameters.put("cluster", true);
      parameters.put("kind", "W1");
      parameters.put("threads", threads);
      points.add(
          new Point(
              "W1 T=" + threads,
              parameters,
              Optional.empty(),
              settings.warmUp(),
              settings.window(),
              settings.rounds(),
              (contender, prefix) -> W1Uncontended.start(contender, prefix, threads)));
    }
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("cluster", true);
    parameters.put("kind", "W7");
    parameters.put("processes", SHAPE.processes());
    parameters.put("threads", SHAPE.threads());
    points.add(
        new Point(
            "W7 " + SHAPE.label(),
            parameters,
            Optional.empty(),
            settings.warmUp(),
            settings.window(),
            settings.rounds(),
            CrossProcess.launcher(SHAPE, settings)));
    return points;
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    boolean w1 = "W1".equals(measurement.point().parameters().get("kind"));
    Map<String, Double> their =
        w1
            ? new W1Uncontended().metrics(measurement, problems)
            : CrossProcess.reentrant().metrics(measurement, problems);
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put(OPS.key(), their.get(w1 ? "pairs_per_s" : "acquisitions_per_s"));
    for (String percentile : List.of("p50", "p99", "max")) {
      metrics.put(
          "op_" + percentile + "_us", their.get((w1 ? "pair_" : "wait_") + percentile + "_us"));
    }
    metrics.put("overlaps", their.getOrDefault("overlaps", Double.NaN));
    for (String cost :
        List.of(
            "ops",
            "cmds_per_op",
            "scripts_per_op",
            "round_trips_per_op",
            "client_cpu_us_per_op",
            "redis_cpu_us_per_op",
            "redis_all_cpu_us_per_op")) {
      metrics.put(cost, their.get(cost));
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    // Issue 21: a W1 pair on the cluster costs its masters at most 1.2x what it costs one server.
    Optional<Results.PointResult> cluster = targets.point("W1 T=16");
    Optional<Results.PointResult> single = targets.point("W1", "T=16");
    String key = Costs.REDIS_CPU.key();
    targets.addRatio(
        "W1 T=16 Redis CPU/pair, cluster masters vs one server (W1 T=16)",
        "<= " + Format.ratio(CLUSTER_CPU_TOLERANCE),
        cluster.map(p -> Format.micros(p.warden(key))).orElse("not run"),
        single.map(p -> Format.micros(p.warden(key)) + " on one server").orElse("W1 not run"),
        cluster.isPresent() && single.isPresent()
            ? cluster.get().warden(key) / single.get().warden(key)
            : Double.NaN,
        CLUSTER_CPU_TOLERANCE,
        false);
    targets.ratio("W1 T=16", OPS, 2.0);
    targets.ratio("W7 4x1", OPS, 2.0);
    targets.exclusion("mutual exclusion held (no overlap at W7 4x1)");
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        OPS,
        Metric.lower("op_p50_us", "pair/wait p50", Metric.Unit.MICROS),
        Metric.lower("op_p99_us", "pair/wait p99", Metric.Unit.MICROS).inChart(),
        CrossProcess.OVERLAPS,
        Costs.COMMANDS,
        Costs.SCRIPTS,
        Costs.CLIENT_CPU,
        Costs.REDIS_CPU.inChart(),
        REDIS_ALL_CPU);
  }
}
