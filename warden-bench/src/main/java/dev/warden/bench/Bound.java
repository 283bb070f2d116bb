package dev.warden.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a point's time went, so that a win on 2 cores is not mistaken for a win on 16: whether the
 * point was bound by Redis's one thread, by the machine's cores, or by latency (round trips and
 * hand-offs, which more cores do not shorten). From the window's CPU time of the clients and of
 * Redis, the whole machine's busy time ({@code /proc/stat}: other work on a shared machine
 * included), and the wall time each client thread spent per operation.
 *
 * <ul>
 *   <li><b>Redis-bound</b> when Redis used at least {@value #REDIS_BOUND_PCT} % of a core (a
 *       cluster: its masters together): Redis's one thread is the limit; a client that asks it for
 *       less gains on any machine.
 *   <li><b>CPU-bound</b> when the clients and Redis used at least {@value #CPU_BOUND_PCT} % of the
 *       cores: the cores are the limit; with more of them, the client that uses less CPU per
 *       operation gains less.
 *   <li><b>starved</b> when the machine was at least {@value #CPU_BOUND_PCT} % busy but mostly with
 *       other work (a shared machine): the figures are not the workload's own limit.
 *   <li><b>latency-bound</b> otherwise: threads spent their time waiting (for Redis's replies, a
 *       round trip, a hand-off); what counts is round trips per operation and their length.
 * </ul>
 */
final class Bound {
  static final double REDIS_BOUND_PCT = 80;
  static final double CPU_BOUND_PCT = 85;
  private static final Path PROC_STAT = Path.of("/proc/stat");

  private Bound() {}

  /** The classification as the report writes it, by its code in the metrics. */
  static final List<String> NAMES =
      List.of(
          "latency-bound", "CPU-bound", "Redis-bound", "starved (machine busy with other work)");

  /**
   * Returns the machine's busy and total CPU time so far in clock ticks, from {@code /proc/stat}'s
   * first line ({@code {busy, total}}); {@code {-1, -1}} where there is none.
   */
  static long[] machineTicks() {
    try {
      for (String line : Files.readAllLines(PROC_STAT)) {
        if (line.startsWith("cpu ")) {
          return parseCpuLine(line);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or unreadable: the machine's share is then unknown
    }
    return new long[] {-1, -1};
  }

  /**
   * Returns {busy, total} of a {@code /proc/stat} "cpu" line: user nice system idle iowait irq
   * softirq steal ...; idle and iowait are not busy.
   */
  static long[] parseCpuLine(String line) {
    String[] fields = line.strip().split("\\s+", -1);
    long total = 0;
    long idle = 0;
    for (int i = 1; i < fields.length && i <= 8; i++) {
      long ticks = Long.parseLong(fields[i]);
      total += ticks;
      if (i == 4 || i == 5) {
        idle += ticks;
      }
    }
    return new long[] {total - idle, total};
  }

  /**
   * Returns the share of the machine busy between two {@link #machineTicks} readings, in percent;
   * NaN when unknown.
   */
  static double busyPct(long[] before, long[] after) {
    long total = after[1] - before[1];
    if (before[1] < 0 || after[1] < 0 || total <= 0) {
      return Double.NaN;
    }
    return 100.0 * (after[0] - before[0]) / total;
  }

  /**
   * Returns the point's time metrics: {@code machine_busy_pct}, {@code clients_redis_busy_pct} (the
   * clients' and Redis's CPU time over the window and the cores), {@code redis_busy_pct} (of one
   * core), {@code cpu_us_per_op} and {@code wall_us_per_op_per_thread} where the point has
   * operations and threads, and {@code bound} (0 latency, 1 CPU, 2 Redis, 3 starved).
   */
  static Map<String, Double> of(Measurement measurement, Map<String, Double> metrics, int cores) {
    double seconds = measurement.seconds();
    double clientSeconds =
        (measurement.clientCpuNanos() + measurement.tally().inRun("worker_cpu_ns")) / 1e9;
    double redisSeconds = measurement.redis().allCpuSeconds();
    Map<String, Double> time = new LinkedHashMap<>();
    double machine = measurement.machineBusyPct();
    double both = 100 * (clientSeconds + redisSeconds) / seconds / cores;
    double redis = 100 * measurement.redis().cpuSeconds() / seconds;
    time.put("machine_busy_pct", machine);
    time.put("clients_redis_busy_pct", both);
    time.put("redis_busy_pct", redis);
    Double ops = metrics.get("ops");
    int threads = threads(measurement.point());
    if (ops != null && ops > 0) {
      time.put("cpu_us_per_op", (clientSeconds + redisSeconds) * 1e6 / ops);
      if (threads > 0) {
        time.put("wall_us_per_op_per_thread", threads * seconds * 1e6 / ops);
      }
    }
    double bound;
    if (redis >= REDIS_BOUND_PCT) {
      bound = 2;
    } else if (both >= CPU_BOUND_PCT) {
      bound = 1;
    } else if (machine >= CPU_BOUND_PCT) {
      bound = 3;
    } else {
      bound = 0;
    }
    time.put("bound", bound);
    return time;
  }

  /** Returns how many client threads do operations at a point: threads times processes, or 0. */
  static int threads(Point point) {
    Object threads = point.parameters().get("threads");
    Object processes = point.parameters().get("processes");
    if (!(threads instanceof Number t)) {
      return 0;
    }
    return t.intValue() * (processes instanceof Number p ? p.intValue() : 1);
  }

  /** Returns a bound's name, or "n/a". */
  static String name(double code) {
    return Double.isNaN(code) ? "n/a" : NAMES.get((int) code);
  }
}
