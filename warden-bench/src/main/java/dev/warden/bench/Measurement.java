package dev.warden.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What the runner measured around one trial's window: the workers' tally, the window's length, and
 * the Redis and client CPU work done meanwhile. Workloads turn it into metrics.
 *
 * @param point the point measured
 * @param tally the merged counts and latencies of the workers
 * @param seconds the window's length
 * @param redis what Redis did in the window, the benchmark's own INFO calls taken out
 * @param clientCpuNanos CPU time this JVM used in the window (only one library runs at a time)
 * @param machineBusyPct how busy the whole machine was in the window, in percent; NaN if unknown
 */
record Measurement(
    Point point,
    Tally tally,
    double seconds,
    RedisStats.Delta redis,
    long clientCpuNanos,
    double machineBusyPct) {

  /** Returns a measurement whose machine share is unknown. */
  Measurement(
      Point point, Tally tally, double seconds, RedisStats.Delta redis, long clientCpuNanos) {
    this(point, tally, seconds, redis, clientCpuNanos, Double.NaN);
  }

  /**
   * Returns the measurements of several rounds of one point as one: tallies merged, windows, Redis
   * work and CPU time added up.
   */
  static Measurement combine(List<Measurement> rounds) {
    Tally tally = new Tally(new Window());
    double seconds = 0;
    RedisStats.Delta redis = RedisStats.Delta.NONE;
    long cpu = 0;
    double busySeconds = 0;
    for (Measurement round : rounds) {
      tally.add(round.tally);
      seconds += round.seconds;
      redis = redis.plus(round.redis);
      cpu += round.clientCpuNanos;
      busySeconds += round.machineBusyPct * round.seconds;
    }
    return new Measurement(rounds.get(0).point, tally, seconds, redis, cpu, busySeconds / seconds);
  }

  /** Returns events per second of the window. */
  double perSecond(double events) {
    return events / seconds;
  }

  /**
   * Returns the operations counted and the cost metrics per operation: Redis commands (run by
   * scripts or not, the script calls themselves not included), script calls, round trips (socket
   * reads Redis processed), client and Redis CPU in microseconds (Redis: one server, or a cluster's
   * masters; and every node's, replicas included); NaN for all when no operation completed.
   */
  Map<String, Double> costsPer(double operations) {
    Map<String, Double> costs = new LinkedHashMap<>();
    costs.put("ops", operations);
    costs.put("cmds_per_op", redis.commands() / operations);
    costs.put("scripts_per_op", redis.scripts() / operations);
    costs.put("round_trips_per_op", redis.roundTrips() / operations);
    costs.put("client_cpu_us_per_op", clientCpuNanos / 1e3 / operations);
    costs.put("redis_cpu_us_per_op", redis.cpuSeconds() * 1e6 / operations);
    costs.put("redis_all_cpu_us_per_op", redis.allCpuSeconds() * 1e6 / operations);
    if (operations == 0) {
      costs.replaceAll((key, value) -> key.equals("ops") ? value : Double.NaN);
    }
    return costs;
  }

  /** Returns {@code <kind>_p50_us}, {@code _p99_us} and {@code _max_us} of a window histogram. */
  Map<String, Double> latencies(String kind) {
    Histogram histogram = tally.histogram(kind);
    Map<String, Double> latencies = new LinkedHashMap<>();
    boolean any = histogram.getTotalCount() > 0;
    latencies.put(kind + "_p50_us", any ? histogram.getValueAtPercentile(50) : Double.NaN);
    latencies.put(kind + "_p99_us", any ? histogram.getValueAtPercentile(99) : Double.NaN);
    latencies.put(kind + "_max_us", any ? histogram.getMaxValue() : Double.NaN);
    return latencies;
  }
}
