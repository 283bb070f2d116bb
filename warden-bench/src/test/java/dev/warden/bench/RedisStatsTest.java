package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisStatsTest {

  @Test
  void parsesCommandCallsFromCommandstats() {
    String info =
        """
        # Commandstats\r
        cmdstat_evalsha:calls=12,usec=300,usec_per_call=25.00,rejected_calls=0,failed_calls=0\r
        cmdstat_config|get:calls=2,usec=10,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r
        cmdstat_HSET:calls=6,usec=12,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r
        """;

    assertThat(RedisStats.parseCommandCalls(info))
        .isEqualTo(Map.of("evalsha", 12L, "config|get", 2L, "hset", 6L));
  }

  @Test
  void readsAFieldOfAnInfoSection() {
    assertThat(
            RedisStats.field(
                "# CPU\r\nused_cpu_sys:1.25\r\nused_cpu_user:0.5\r\n", "used_cpu_user"))
        .isEqualTo("0.5");
  }

  @Test
  void deltaSeparatesScriptsFromCommandsAndLeavesOutTheBenchmarksInfoCalls() {
    RedisStats.Snapshot before =
        new RedisStats.Snapshot(Map.of("evalsha", 10L, "hset", 10L, "info", 5L), 1.0, 100);
    RedisStats.Snapshot after =
        new RedisStats.Snapshot(
            Map.of("evalsha", 14L, "hset", 12L, "del", 2L, "info", 6L), 1.5, 107);

    RedisStats.Delta delta = after.minus(before);

    assertThat(delta.scripts()).isEqualTo(4);
    assertThat(delta.commands()).isEqualTo(4);
    assertThat(delta.roundTrips()).isEqualTo(4); // 7 reads, 3 of them the snapshots' INFO calls
    assertThat(delta.cpuSeconds()).isEqualTo(0.5);
    assertThat(delta.byCommand()).isEqualTo(Map.of("evalsha", 4L, "hset", 2L, "del", 2L));
  }
}
