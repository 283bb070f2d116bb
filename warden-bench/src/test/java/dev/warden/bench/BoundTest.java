package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BoundTest {

  @Test
  void procStatCpuLineCountsIdleAndIowaitAsNotBusy() {
    long[] ticks = Bound.parseCpuLine("cpu  100 5 50 800 40 3 2 0 0 0");

    assertThat(ticks).containsExactly(160, 1000);
    assertThat(Bound.busyPct(new long[] {100, 1000}, new long[] {190, 1100})).isEqualTo(90.0);
    assertThat(Bound.busyPct(new long[] {-1, -1}, new long[] {190, 1100})).isNaN();
  }

  @Test
  void aBusyRedisThreadIsRedisBoundBeforeBusyClientsAreCpuBound() {
    Map<String, Double> redisBound =
        Bound.of(measurement(0.85, 0.5, 90, 1_000), Map.of("ops", 1_000.0), 2);
    Map<String, Double> cpuBound =
        Bound.of(measurement(0.5, 1.3, 95, 1_000), Map.of("ops", 1_000.0), 2);
    Map<String, Double> starved =
        Bound.of(measurement(0.1, 0.1, 99, 1_000), Map.of("ops", 1_000.0), 2);
    Map<String, Double> latencyBound =
        Bound.of(measurement(0.1, 0.1, 20, 1_000), Map.of("ops", 1_000.0), 2);

    assertThat(Bound.name(redisBound.get("bound"))).isEqualTo("Redis-bound");
    assertThat(Bound.name(cpuBound.get("bound"))).isEqualTo("CPU-bound");
    assertThat(Bound.name(latencyBound.get("bound"))).isEqualTo("latency-bound");
    assertThat(Bound.name(starved.get("bound"))).startsWith("starved");
    // 4 threads x 1 s / 1,000 ops; (0.1 + 0.1) s of CPU / 1,000 ops
    assertThat(latencyBound.get("wall_us_per_op_per_thread")).isEqualTo(4_000.0);
    assertThat(latencyBound.get("cpu_us_per_op")).isEqualTo(200.0, within());
    assertThat(latencyBound.get("clients_redis_busy_pct")).isEqualTo(10.0, within());
  }

  @Test
  void withoutTheMachinesShareTheClientsAndRedisDecide() {
    Map<String, Double> bound =
        Bound.of(measurement(0.3, 1.5, Double.NaN, 10), Map.of("ops", 10.0), 2);

    assertThat(Bound.name(bound.get("bound"))).isEqualTo("CPU-bound"); // 1.8 s of 2 cores
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }

  /** One second with 4 threads: Redis's and the clients' CPU seconds, the machine's share. */
  private static Measurement measurement(
      double redisSeconds, double clientSeconds, double machinePct, long ops) {
    Point point =
        new Point(
            "T=4",
            Map.of("threads", 4),
            Optional.empty(),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            1,
            (contender, prefix) -> null);
    RedisStats.Delta redis =
        new RedisStats.Delta(ops, ops, ops, redisSeconds, redisSeconds, Map.of());
    return new Measurement(
        point, new Tally(new Window()), 1.0, redis, (long) (clientSeconds * 1e9), machinePct);
  }
}
