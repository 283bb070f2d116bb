package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.testkit.RedisCluster.Mode;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One 3+3 cluster for the whole class. The fault tests each use a different third of the slots (so
 * a different shard, as {@code redis-cli --cluster create} assigns them), so no test waits for the
 * failover spacing of another.
 */
class RedisClusterIT {
  private static RedisCluster cluster;
  private static ClientResources resources;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
    resources = DefaultClientResources.create();
  }

  @AfterAll
  static void stopCluster() {
    try {
      if (resources != null) {
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  void startMakesThreeHealthyMastersWithALinkedReplicaEachCoveringAllSlots() {
    assertThat(cluster.nodes()).hasSize(6);
    assertThat(cluster.masters()).hasSize(3);
    for (RedisServer node : cluster.nodes()) {
      assertThat(node.redis().clusterInfo())
          .contains("cluster_state:ok")
          .contains("cluster_slots_assigned:16384")
          .contains("cluster_slots_ok:16384")
          .contains("cluster_known_nodes:6")
          .contains("cluster_size:3");
    }
    for (RedisServer master : cluster.masters()) {
      RedisServer replica = cluster.replicaOf(master);
      assertThat(replica.redis().info("replication"))
          .contains("role:slave")
          .contains("master_port:" + master.port())
          .contains("master_link_status:up");
    }
    withClient(redis -> assertThat(redis.clusterSlots()).isNotEmpty());
  }

  @Test
  void aKeyWrittenThroughTheClusterIsOnItsMaster() {
    String key = keyInSlots(0, SlotHash.SLOT_COUNT - 1, "written");
    int slot = SlotHash.getSlot(key);

    withClient(redis -> redis.set(key, "value"));

    RedisServer master = cluster.masterOf(key);
    assertThat(master.redis().get(key)).isEqualTo("value");
    for (RedisServer other : cluster.masters()) {
      assertThat(other.redis().clusterCountKeysInSlot(slot)).isEqualTo(other == master ? 1 : 0);
    }
  }

  @Test
  void gracefulFailoverSwitchesTheMasterAndKeepsTheData() {
    String key = keyInSlots(0, 5460, "graceful");
    RedisServer master = cluster.masterOf(key);
    RedisServer replica = cluster.replicaOf(master);
    withClient(redis -> redis.set(key, "value"));

    cluster.failover(replica, Mode.GRACEFUL);

    assertThat(cluster.masterOf(key)).isSameAs(replica);
    assertThat(replica.redis().info("replication")).contains("role:master");
    assertThat(replica.redis().get(key)).isEqualTo("value");
    withClient(redis -> assertThat(redis.get(key)).isEqualTo("value"));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(master.redis().info("replication"))
                    .contains("role:slave")
                    .contains("master_port:" + replica.port())
                    .contains("master_link_status:up"));
  }

  @Test
  void aSecondFailoverOfTheSameShardWaitsOutTheSpacing() {
    String key = keyInSlots(0, 5460, "spaced");
    RedisServer master = cluster.masterOf(key);
    RedisServer replica = cluster.replicaOf(master);

    cluster.failover(replica, Mode.FORCE);
    long firstReturnedAt = System.nanoTime();
    assertThat(cluster.masterOf(key)).isSameAs(replica);
    cluster.failover(master, Mode.GRACEFUL);
    long gapMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstReturnedAt);

    assertThat(cluster.masterOf(key)).isSameAs(master);
    assertThat(master.redis().info("replication")).contains("role:master");
    // The spacing is 4 x 1 s + 1 s from the first CLUSTER FAILOVER, which came before the first
    // failover() returned by the time its routing took to agree (well under 2 s).
    assertThat(gapMillis).isGreaterThanOrEqualTo(3_000);
  }

  @Test
  void aFrozenNodeAnswersNothingUntilItResumes() throws Exception {
    RedisServer replica = cluster.replicaOf(cluster.masters().get(0));

    // Long enough that the probe below (redis-cli's start plus 200 ms) ends well before SIGCONT.
    cluster.freeze(replica, Duration.ofSeconds(2));

    assertThatThrownBy(
            () -> RedisCli.call("127.0.0.1", replica.port(), Duration.ofMillis(200), "PING"))
        .isInstanceOf(IOException.class);
    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(
                        RedisCli.call("127.0.0.1", replica.port(), Duration.ofSeconds(1), "PING"))
                    .isEqualTo("PONG"));
    cluster.awaitHealthy();
  }

  @Test
  void aKilledMasterIsReplacedByItsReplicaAndRestartsAsItsReplica() {
    String key = keyInSlots(5461, 10922, "killed");
    int slot = SlotHash.getSlot(key);
    RedisServer master = cluster.masterOf(key);
    RedisServer replica = cluster.replicaOf(master);
    master.redis().set(key, "value");
    assertThat(master.redis().waitForReplication(1, 5000)).isEqualTo(1);

    long killedAt = System.nanoTime();
    cluster.kill(master);
    cluster.awaitOwner(slot, replica);
    long takeoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);

    // Measured 2.2-2.8 s with a node timeout of 1 s; the margin is for a busy 2-core machine.
    assertThat(takeoverMillis).isLessThan(10_000);
    assertThat(master.isRunning()).isFalse();
    assertThat(replica.redis().info("replication")).contains("role:master");
    assertThat(replica.redis().get(key)).isEqualTo("value");

    cluster.restart(master);

    assertThat(master.redis().info("replication"))
        .contains("role:slave")
        .contains("master_port:" + replica.port())
        .contains("master_link_status:up");
    assertThat(cluster.masterOf(key)).isSameAs(replica);
    assertThat(master.redis().clusterCountKeysInSlot(slot)).isEqualTo(1);
  }

  @Test
  void takeoverOfAReplicaWithPausedReplicationLosesAnUnacknowledgedWrite() {
    String key = keyInSlots(10923, SlotHash.SLOT_COUNT - 1, "lost");
    int slot = SlotHash.getSlot(key);
    RedisServer master = cluster.masterOf(key);
    RedisServer replica = cluster.replicaOf(master);

    cluster.pauseReplication(replica, Duration.ofSeconds(20));
    try {
      assertThat(master.redis().set(key, "holderA")).isEqualTo("OK");
      assertThat(master.redis().waitForReplication(1, 200)).isZero();

      cluster.failover(replica, Mode.TAKEOVER);
    } finally {
      cluster.resumeReplication(replica);
    }

    assertThat(cluster.masterOf(key)).isSameAs(replica);
    assertThat(replica.redis().get(key)).isNull();
    withClient(redis -> assertThat(redis.get(key)).isNull());
    // The old master follows the new one and drops the write with its data.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(master.redis().info("replication"))
                  .contains("role:slave")
                  .contains("master_port:" + replica.port())
                  .contains("master_link_status:up");
              assertThat(master.redis().clusterCountKeysInSlot(slot)).isZero();
            });
    assertThat(replica.redis().clusterCountKeysInSlot(slot)).isZero();
  }

  @Test
  void loseWritesRunsWritesThatTheFailoverAfterThemLoses() {
    String key = keyInSlots(5461, 10922, "forgotten");
    RedisServer master = cluster.masterOf(key);

    RedisServer successor =
        cluster.loseWrites(
            master,
            () -> {
              assertThat(master.redis().set(key, "holderA")).isEqualTo("OK");
              assertThat(master.redis().waitForReplication(1, 200)).isZero();
            });

    assertThat(successor).isNotSameAs(master).isSameAs(cluster.masterOf(key));
    assertThat(successor.redis().get(key)).isNull();
    withClient(redis -> assertThat(redis.get(key)).isNull());
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(master.redis().info("replication"))
                  .contains("role:slave")
                  .contains("master_link_status:up");
              assertThat(master.redis().clusterCountKeysInSlot(SlotHash.getSlot(key))).isZero();
            });
  }

  @Test
  void migrateSlotMovesTheSlotAndAllItsKeys() {
    String key = keyInSlots(0, SlotHash.SLOT_COUNT - 1, "migrated");
    int slot = SlotHash.getSlot(key);
    RedisServer source = cluster.masterOf(key);
    RedisServer target =
        cluster.masters().stream().filter(master -> master != source).findFirst().orElseThrow();
    String tag = key.substring(0, key.indexOf('}') + 1);
    int keys = 250; // more than one MIGRATE batch
    withClient(
        redis -> {
          for (int i = 0; i < keys; i++) {
            redis.set(tag + i, "value" + i);
          }
        });
    assertThat(source.redis().clusterCountKeysInSlot(slot)).isEqualTo(keys);

    cluster.migrateSlot(slot, target);

    assertThat(cluster.masterOf(key)).isSameAs(target);
    assertThat(target.redis().clusterCountKeysInSlot(slot)).isEqualTo(keys);
    assertThat(source.redis().clusterCountKeysInSlot(slot)).isZero();
    assertThat(target.redis().get(tag + 7)).isEqualTo("value7");
    for (RedisServer node : cluster.nodes()) {
      if (node != target) {
        // Every other node, replicas included, redirects the key to the target.
        assertThatThrownBy(() -> node.redis().get(key))
            .as("%s's route", node)
            .hasMessageContaining("MOVED " + slot + " 127.0.0.1:" + target.port());
      }
    }
    withClient(redis -> assertThat(redis.get(tag + 249)).isEqualTo("value249"));
  }

  /** Returns a key {@code "{tag}name"} whose slot is in {@code from..to}. */
  private static String keyInSlots(int from, int to, String name) {
    for (int i = 0; ; i++) {
      String key = "{" + name + i + "}";
      int slot = SlotHash.getSlot(key);
      if (slot >= from && slot <= to) {
        return key + name;
      }
    }
  }

  /** Runs {@code body} with a fresh cluster client seeded with the current masters. */
  private static void withClient(Consumer<RedisAdvancedClusterCommands<String, String>> body) {
    List<RedisURI> seeds = new ArrayList<>();
    for (String seed : cluster.seeds()) {
      seeds.add(RedisURI.create(seed));
    }
    RedisClusterClient client = RedisClusterClient.create(resources, seeds);
    try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
      body.accept(connection.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
