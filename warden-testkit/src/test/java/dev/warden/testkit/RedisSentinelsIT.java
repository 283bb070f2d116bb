package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Starts three sentinel sets of about 4 s each; with a forced and a kill-based failover, the class
 * takes about 20 s on a busy 2-core machine (up to about 40 s if the kill-based election splits).
 */
class RedisSentinelsIT {
  // A kill-based failover usually takes 2-3 s; a split vote adds failover-timeout and a retry.
  private static final Duration KILL_FAILOVER = Duration.ofSeconds(30);

  @Test
  void startsAHealthySetThatLettuceWritesToThroughTheSentinelUri() {
    try (RedisSentinels set = RedisSentinels.start("orders")) {
      List<Integer> sentinelPorts = set.sentinelPorts();
      assertThat(sentinelPorts).hasSize(3).doesNotHaveDuplicates();
      assertThat(set.masterName()).isEqualTo("orders");
      assertThat(set.uri())
          .isEqualTo(
              "redis-sentinel://127.0.0.1:"
                  + sentinelPorts.get(0)
                  + ",127.0.0.1:"
                  + sentinelPorts.get(1)
                  + ",127.0.0.1:"
                  + sentinelPorts.get(2)
                  + "#orders");
      RedisURI parsed = RedisURI.create(set.uri());
      assertThat(parsed.getSentinels()).hasSize(3);
      assertThat(parsed.getSentinelMasterId()).isEqualTo("orders");

      RedisServer master = set.master();
      assertThat(master).isSameAs(set.servers().get(0));
      assertThat(set.replicas()).hasSize(2).doesNotContain(master);
      assertThat(master.redis().role().get(0)).isEqualTo("master");
      for (RedisServer replica : set.replicas()) {
        assertThat(replica.redis().role().get(0)).isEqualTo("slave");
      }

      RedisClient client = RedisClient.create(set.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        connection.sync().set("through-sentinel", "value");
        assertThat(connection.sync().get("through-sentinel")).isEqualTo("value");
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      assertThat(master.redis().get("through-sentinel")).isEqualTo("value");
      assertThatThrownBy(() -> set.awaitMaster(1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void failoverSwitchesTheMasterAndKeepsReplicatedData() {
    try (RedisSentinels set = RedisSentinels.start()) {
      RedisServer old = set.master();
      old.redis().set("before-failover", "kept");
      assertThat(old.redis().waitForReplication(2, 10_000)).isEqualTo(2);

      RedisServer promoted = set.failover();

      assertThat(promoted).isNotSameAs(old);
      assertThat(set.master()).isSameAs(promoted);
      assertThat(set.awaitMaster(promoted.port())).isSameAs(promoted);
      assertThat(set.replicas()).contains(old).doesNotContain(promoted);
      assertThat(promoted.redis().role().get(0)).isEqualTo("master");
      assertThat(promoted.redis().get("before-failover")).isEqualTo("kept");
    }
  }

  @Test
  void killMasterLeadsToANewMaster() {
    try (RedisSentinels set = RedisSentinels.start()) {
      RedisServer old = set.master();
      old.redis().set("before-kill", "kept");
      assertThat(old.redis().waitForReplication(2, 10_000)).isEqualTo(2);

      RedisServer killed = set.killMaster();
      long start = System.nanoTime();
      RedisServer promoted = set.awaitNewMaster(killed, KILL_FAILOVER);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(killed).isSameAs(old);
      assertThat(killed.isRunning()).isFalse();
      assertThat(promoted).isNotSameAs(old);
      assertThat(set.master()).isSameAs(promoted);
      assertThat(promoted.redis().get("before-kill")).isEqualTo("kept");
      assertThat(took).isLessThan(KILL_FAILOVER);
    }
  }
}
