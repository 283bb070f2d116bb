package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Sentinel sets and clusters started behind {@link FaultProxy}s: every address a client learns is a
 * proxy's, Warden works through them, a blackholed node is really unreachable for Warden, and
 * healing brings it back. About 60 s on a busy 2-core machine (two failovers and a demotion).
 */
class PartitionedDeploymentsIT {
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  private static final Duration RECOVERY = Duration.ofSeconds(40);

  @Test
  void behindProxiesTheSentinelsNameOnlyProxiesAndWardenLocksThroughThem() {
    try (RedisSentinels set = RedisSentinels.startBehindProxies();
        Warden warden = sentinelWarden(set)) {
      RedisServer master = set.master();
      FaultProxy masterProxy = set.proxyOf(master);
      assertThat(port(askSentinel(set, s -> s.getMasterAddrByName(set.masterName()))))
          .isEqualTo(masterProxy.port());
      List<Integer> replicaProxies =
          set.replicas().stream().map(replica -> set.proxyOf(replica).port()).toList();
      List<Map<String, String>> known = askSentinel(set, s -> s.replicas(set.masterName()));
      assertThat(known.stream().map(replica -> Integer.parseInt(replica.get("port"))).toList())
          .containsExactlyInAnyOrderElementsOf(replicaProxies);
      for (int i = 0; i < 3; i++) {
        assertThat(set.uri()).contains(":" + set.sentinelProxies().get(i).port());
      }

      DistributedLock lock = warden.lock("behind-proxies");
      assertThat(lock.tryLock()).isTrue();
      assertThat(master.redis().exists("warden:{behind-proxies}:lock")).isEqualTo(1);
      assertThat(masterProxy.connections()).isPositive();
      lock.unlock();
    }
  }

  @Test
  void aBlackholedSentinelMasterIsUnreachableUntilFailedOverAndComesBackAsAReplicaWhenHealed() {
    try (RedisSentinels set = RedisSentinels.startBehindProxies();
        Warden warden = sentinelWarden(set)) {
      RedisServer old = set.master();
      DistributedLock lock = warden.lock("partitioned");
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();

      set.proxyOf(old).blackhole();

      // The sentinels need a second to call it down: until then Warden's calls time out.
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("partitioned");
      // The sentinels reach it through its proxy too, so they fail it over; Warden follows.
      RedisServer promoted = set.awaitNewMaster(old, RECOVERY);
      await()
          .atMost(RECOVERY)
          .ignoreExceptionsInstanceOf(WardenException.class)
          .until(() -> tryLockAndUnlock(lock));
      assertThat(promoted.redis().role().get(0)).isEqualTo("master");

      set.proxyOf(old).heal();

      await()
          .atMost(RECOVERY)
          .until(() -> "slave".equals(String.valueOf(old.redis().role().get(0))));
      assertThat(set.master()).isSameAs(promoted);
    }
  }

  @Test
  void behindProxiesAClusterAnnouncesItsProxiesAndABlackholedMasterIsUnreachableUntilHealed() {
    try (RedisCluster cluster = RedisCluster.startBehindProxies();
        Warden warden = clusterWarden(cluster)) {
      for (RedisServer node : cluster.nodes()) {
        String line =
            node.redis()
                .clusterNodes()
                .lines()
                .filter(l -> l.contains("myself"))
                .findAny()
                .orElseThrow();
        assertThat(line)
            .contains(
                "127.0.0.1:"
                    + cluster.proxyOf(node).port()
                    + "@"
                    + cluster.busProxyOf(node).port());
      }
      assertThat(cluster.seeds())
          .allSatisfy(seed -> assertThat(seed).matches("redis://127\\.0\\.0\\.1:[0-9]+"))
          .containsExactlyElementsOf(
              cluster.masters().stream()
                  .map(m -> "redis://127.0.0.1:" + cluster.proxyOf(m).port())
                  .toList());

      DistributedLock cut = warden.lock("cut");
      RedisServer master = cluster.masterOf("warden:{cut}:lock");
      DistributedLock elsewhere = warden.lock(nameOnAnotherShard(cluster, master));
      assertThat(tryLockAndUnlock(cut)).isTrue();

      cluster.proxyOf(master).blackhole();
      try {
        assertThatThrownBy(cut::tryLock)
            .isInstanceOf(WardenException.class)
            .hasMessageContaining("cut");
        assertThat(tryLockAndUnlock(elsewhere)).isTrue(); // the other shards still serve
        assertThat(master.redis().clusterInfo()).contains("cluster_state:ok"); // no failover
      } finally {
        cluster.proxyOf(master).heal();
      }

      await()
          .atMost(RECOVERY)
          .ignoreExceptionsInstanceOf(WardenException.class)
          .until(() -> tryLockAndUnlock(cut));
      assertThat(cluster.masterOf("warden:{cut}:lock")).isSameAs(master);
    }
  }

  @Test
  void anIsolatedClusterMasterIsFailedOverAndComesBackAsAReplicaWhenHealed() {
    try (RedisCluster cluster = RedisCluster.startBehindProxies();
        Warden warden = clusterWarden(cluster)) {
      DistributedLock lock = warden.lock("isolated");
      RedisServer master = cluster.masterOf("warden:{isolated}:lock");
      RedisServer replica = cluster.replicaOf(master);
      int slot = SlotHash.getSlot("warden:{isolated}:lock");

      cluster.isolate(master);
      try {
        assertThatThrownBy(lock::tryLock).isInstanceOf(WardenException.class);
        cluster.awaitOwner(slot, replica); // the others no longer reach it: its replica takes over
        await()
            .atMost(RECOVERY)
            .ignoreExceptionsInstanceOf(WardenException.class)
            .until(() -> tryLockAndUnlock(lock));
      } finally {
        cluster.heal(master);
      }

      cluster.awaitHealthy();
      assertThat(cluster.masterOf("warden:{isolated}:lock")).isSameAs(replica);
      assertThat(cluster.replicaOf(replica)).isSameAs(master);
    }
  }

  private static boolean tryLockAndUnlock(DistributedLock lock) {
    if (!lock.tryLock()) {
      return false;
    }
    lock.unlock();
    return true;
  }

  private static String nameOnAnotherShard(RedisCluster cluster, RedisServer master) {
    for (int i = 0; ; i++) {
      String name = "elsewhere-" + i;
      if (cluster.masterOf("warden:{" + name + "}:lock") != master) {
        return name;
      }
    }
  }

  private static Warden sentinelWarden(RedisSentinels set) {
    return Warden.builder().uri(set.uri()).commandTimeout(COMMAND_TIMEOUT).build();
  }

  private static Warden clusterWarden(RedisCluster cluster) {
    return Warden.builder()
        .cluster(cluster.seeds().toArray(String[]::new))
        .commandTimeout(COMMAND_TIMEOUT)
        .build();
  }

  private static int port(SocketAddress address) {
    return ((InetSocketAddress) address).getPort();
  }

  /** Asks the first sentinel directly (not through its proxy). */
  private static <T> T askSentinel(
      RedisSentinels set, Function<RedisSentinelCommands<String, String>, T> question) {
    RedisClient client = RedisClient.create();
    try (StatefulRedisSentinelConnection<String, String> connection =
        client.connectSentinel(
            RedisURI.create("redis://127.0.0.1:" + set.sentinelPorts().get(0)))) {
      return question.apply(connection.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
