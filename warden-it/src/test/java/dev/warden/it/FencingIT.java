package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fencing tokens never repeat, on every event that can bring an old fence back (docs/fencing.md): a
 * restart from an older RDB file, and on a cluster every way a slot gets another master (a
 * graceful, forced or TAKEOVER failover, a killed master's replica elected, the old master taking
 * its slots back, a slot migration) with the writes the new master never received lost. Tokens must
 * rise above every token issued before, the lost ones included. On a cluster a token reads the
 * node's config epoch only at a fence's first token of a master tenure (prelude.lua's
 * cluster_epoch), which these tests also pin.
 */
class FencingIT {
  private static final String LOCK = "warden:{f}:lock";
  private static final String FENCE = "warden:{f}:lock:fence";
  private static final long EPOCH_SPAN = 1L << 47;

  @Test
  void tokensKeepRisingAcrossARestartFromAnOlderRdbFile() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      List<Long> issued = new ArrayList<>();
      try (Warden warden = Warden.builder().uri(redis.uri()).build()) {
        DistributedLock lock = warden.lock("f");
        issued.add(tokenOfOneHold(lock));
        redis.redis().save(); // the snapshot the restart comes back with
        for (int i = 0; i < 50; i++) {
          issued.add(tokenOfOneHold(lock));
        }
      }
      redis.kill();
      redis.restart();
      assertThat(redis.redis().hget(FENCE, "c")).as("the older fence came back").isNotNull();
      try (Warden warden = Warden.builder().uri(redis.uri()).build()) {
        long next = tokenOfOneHold(warden.lock("f"));
        assertThat(next)
            .isGreaterThan(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
      }
      assertThat(issued).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void aHoldBroughtBackByARestartFromAnOlderFileGivesItsOwnersNextLockANewToken() throws Exception {
    // found by `warden chaos`: the thread's next lock() re-entered the revived hold and got its old
    // token, below one issued since (which the rewind lost), so a fencing resource refused it
    try (RedisServer redis = RedisServer.start();
        Warden mine = Warden.builder().uri(redis.uri()).build();
        Warden other = Warden.builder().uri(redis.uri()).build()) {
      DistributedLock lock = mine.lock("f");
      lock.lock(2, TimeUnit.SECONDS);
      long first = lock.fencingToken();
      redis.redis().save(); // the snapshot has this thread's hold
      lock.unlock();
      long second = tokenOfOneHold(other.lock("f"));
      redis.restart(); // back with the hold and the fence of before
      assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(first));

      lock.lock(2, TimeUnit.SECONDS);
      try {
        assertThat(lock.fencingToken()).isGreaterThan(second);
        assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(lock.fencingToken()));
        assertThat(lock.getHoldCount()).as("the revived hold became this one").isEqualTo(1);
      } finally {
        lock.unlock();
      }
      assertThat(redis.redis().exists(LOCK)).as("the unlock ended it").isZero();
      assertThat(other.lock("f").tryLock()).isTrue();
      assertThat(other.lock("f").fencingToken()).isGreaterThan(second);
      other.lock("f").unlock();
    }
  }

  @Test
  void onAClusterTheFirstTokenAfterLosingWritesRanksAboveTheLostOnesByTheConfigEpoch() {
    try (RedisCluster cluster = RedisCluster.start()) {
      RedisServer master = cluster.masterOf(LOCK);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(master.redis(), "a"));
      long oldEpoch = Long.parseLong(master.redis().hget(FENCE, "e"));
      assertThat(master.redis().hget(FENCE, "r")).isEqualTo(tenureOf(master));
      forgeAhead(master); // then lost: the new master's clock cannot be what wins
      RedisServer promoted =
          cluster.loseWrites(
              master,
              () -> {
                for (int i = 0; i < 3; i++) {
                  issued.add(mint(master.redis(), "lost-" + i));
                }
              });
      long next = mint(promoted.redis(), "b");
      assertThat(next).isGreaterThan(max(issued));
      long newEpoch = Long.parseLong(promoted.redis().hget(FENCE, "e"));
      assertThat(newEpoch).isGreaterThan(oldEpoch).isEqualTo(configEpochOf(promoted));
      assertThat(promoted.redis().hget(FENCE, "r")).isEqualTo(tenureOf(promoted));
      assertThat(mint(promoted.redis(), "c")).isGreaterThan(next);
    }
  }

  @Test
  void onAClusterOnlyAFencesFirstTokenOfAMasterTenureReadsTheConfigEpoch() {
    try (RedisCluster cluster = RedisCluster.start()) {
      RedisServer master = cluster.masterOf(LOCK);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(master.redis(), "first"));
      master.redis().configResetstat();
      for (int i = 0; i < 20; i++) {
        issued.add(mint(master.redis(), "next-" + i));
      }
      Map<String, Long> calls = master.commandCalls();
      assertThat(calls.get("eval")).isEqualTo(20L);
      assertThat(calls).doesNotContainKeys("cluster|info", "cluster|myid");
      assertThat(calls.get("info"))
          .as("INFO replication, once a token")
          .isGreaterThanOrEqualTo(20L);
      assertThat(issued).isSorted().doesNotHaveDuplicates();

      // a graceful failover loses nothing, and the new master's tenure reads its epoch once
      RedisServer replica = cluster.replicaOf(master);
      cluster.failover(replica, RedisCluster.Mode.GRACEFUL);
      replica.redis().configResetstat();
      for (int i = 0; i < 5; i++) {
        issued.add(mint(replica.redis(), "after-" + i));
      }
      assertThat(replica.commandCalls()).containsEntry("cluster|info", 1L);
      assertThat(issued).isSorted().doesNotHaveDuplicates();
      assertThat(epochOf(max(issued))).isEqualTo(configEpochOf(replica));
      assertThat(replica.redis().hget(FENCE, "r")).isEqualTo(tenureOf(replica));
    }
  }

  @Test
  void onAClusterTokensRiseAboveTheWritesAForcedFailoverLost() {
    try (RedisCluster cluster = RedisCluster.start()) {
      RedisServer master = cluster.masterOf(LOCK);
      RedisServer replica = cluster.replicaOf(master);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(master.redis(), "a"));
      cluster.pauseReplication(replica, Duration.ofSeconds(60));
      try {
        forgeAhead(master); // lost with the tokens below: the replica's clock cannot be what wins
        for (int i = 0; i < 3; i++) {
          issued.add(mint(master.redis(), "lost-" + i));
        }
        cluster.failover(replica, RedisCluster.Mode.FORCE);
      } finally {
        cluster.resumeReplication(replica);
      }
      assertThat(Long.parseLong(replica.redis().hget(FENCE, "c")))
          .as("the promoted replica never received the last tokens")
          .isLessThan(max(issued) % EPOCH_SPAN);
      assertThat(mint(replica.redis(), "b")).isGreaterThan(max(issued));
    }
  }

  @Test
  void onAClusterTokensRiseAboveTheWritesOfAKilledMasterItsReplicaNeverReceived() {
    try (RedisCluster cluster = RedisCluster.start()) {
      RedisServer master = cluster.masterOf(LOCK);
      RedisServer replica = cluster.replicaOf(master);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(master.redis(), "a"));
      cluster.pauseReplication(replica, Duration.ofSeconds(60));
      try {
        forgeAhead(master); // lost with the tokens below: the replica's clock cannot be what wins
        for (int i = 0; i < 3; i++) {
          issued.add(mint(master.redis(), "lost-" + i));
        }
        cluster.kill(master);
        cluster.awaitOwner(SlotHash.getSlot(LOCK), replica);
      } finally {
        cluster.resumeReplication(replica);
      }
      assertThat(mint(replica.redis(), "b")).isGreaterThan(max(issued));
      assertThat(epochOf(mint(replica.redis(), "c"))).isEqualTo(configEpochOf(replica));
    }
  }

  @Test
  void onAClusterTokensRiseWhenAMasterTakesItsSlotsBackAndTheFenceOfItsFirstTenureIsAllItHas()
      throws Exception {
    // A -> B -> A, each by TAKEOVER with the other's last writes lost: A comes back with the fence
    // of its own first tenure, which names A's earlier epoch and, before tenures, A itself (as n)
    try (RedisCluster cluster = RedisCluster.start();
        Warden warden = Warden.builder().cluster(cluster.seeds().toArray(String[]::new)).build()) {
      RedisServer a = cluster.masterOf(LOCK);
      List<Long> issued = new ArrayList<>();
      issued.add(tokenOfOneHold(warden.lock("f"))); // a client's, through its topology
      String firstTenure = a.redis().hget(FENCE, "r");
      assertThat(firstTenure).isEqualTo(tenureOf(a));
      RedisServer b =
          cluster.loseWrites(
              a,
              () -> {
                forgeAhead(a);
                for (int i = 0; i < 3; i++) {
                  issued.add(mint(a.redis(), "lost-on-a-" + i));
                }
              });
      a.awaitLinkUp(Duration.ofSeconds(15)); // A now holds B's data: A's lost tokens are gone
      RedisServer back =
          cluster.loseWrites(
              b,
              () -> {
                for (int i = 0; i < 3; i++) {
                  issued.add(mint(b.redis(), "lost-on-b-" + i));
                }
              });
      assertThat(back).isEqualTo(a);
      assertThat(a.redis().hget(FENCE, "r"))
          .as("B's tokens never reached A: the fence is the one of A's first tenure")
          .isEqualTo(firstTenure);
      assertThat(epochOf(max(issued))).isGreaterThan(Long.parseLong(a.redis().hget(FENCE, "e")));
      String secondTenure = tenureOf(a);

      long next = tokenOfOneHold(warden.lock("f")); // the same client, whatever it saw meanwhile
      assertThat(next).isGreaterThan(max(issued));
      assertThat(epochOf(next)).isEqualTo(configEpochOf(a));
      assertThat(secondTenure)
          .as("A's second tenure has an ID of its own")
          .isNotEqualTo(firstTenure);
    }
  }

  @Test
  void onAClusterTokensRiseAcrossSlotMigrationsAndARestartFromAnOlderRdbFile() {
    // no replicas: the restarted master keeps its slots, whatever the time it takes to restart
    try (RedisCluster cluster = RedisCluster.start(3, 0, Duration.ofSeconds(1))) {
      RedisServer a = cluster.masterOf(LOCK);
      RedisServer other =
          cluster.masters().stream().filter(node -> node != a).findFirst().orElseThrow();
      int slot = SlotHash.getSlot(LOCK);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(a.redis(), "a"));
      String firstTenure = a.redis().hget(FENCE, "r");
      a.redis().save(); // the older file: this fence, A's first tenure

      cluster.migrateSlot(slot, other); // the fence moves with the lock's keys
      issued.add(mint(other.redis(), "moved"));
      assertThat(epochOf(max(issued))).isEqualTo(configEpochOf(other));
      assertThat(other.redis().hget(FENCE, "r")).isEqualTo(tenureOf(other));
      cluster.migrateSlot(slot, a); // and back: A's epoch rises above the other's
      for (int i = 0; i < 3; i++) {
        issued.add(mint(a.redis(), "back-" + i));
      }
      assertThat(epochOf(max(issued))).isEqualTo(configEpochOf(a));

      cluster.kill(a);
      cluster.restart(a); // from the older file, while nodes.conf keeps A's current epoch
      assertThat(a.redis().hget(FENCE, "r")).as("the older fence came back").isEqualTo(firstTenure);
      long next = mint(a.redis(), "after");
      assertThat(next).isGreaterThan(max(issued));
      assertThat(epochOf(next)).isEqualTo(configEpochOf(a));
      assertThat(issued).isSorted().doesNotHaveDuplicates();
    }
  }

  private static long tokenOfOneHold(DistributedLock lock) throws InterruptedException {
    try (LockHandle hold = lock.acquire(Duration.ofSeconds(10))) {
      return hold.fencingToken();
    }
  }

  /** Takes the lock for {@code owner} with the cluster's fence terms and frees it again. */
  private static long mint(RedisCommands<String, String> node, String owner) {
    List<Object> reply =
        LuaScripts.run(
            node,
            "lock-acquire",
            new String[] {LOCK, FENCE},
            owner,
            "10000",
            "0",
            "0",
            "3600000:cluster",
            "acq-" + owner,
            "c:",
            "0");
    assertThat(reply.get(0)).isEqualTo(1L);
    node.del(LOCK);
    return Long.parseLong(String.valueOf(reply.get(1)));
  }

  /**
   * Moves the fence's count some 8 hours ahead of any server clock, so that a token minted after
   * this write was lost ranks above the lost ones by its epoch alone, never by the clock.
   */
  private static void forgeAhead(RedisServer node) {
    long count = Long.parseLong(node.redis().hget(FENCE, "c"));
    node.redis().hset(FENCE, "c", Long.toString(count + 3_000_000_000L));
  }

  private static long max(List<Long> tokens) {
    return tokens.stream().mapToLong(Long::longValue).max().orElseThrow();
  }

  /** The epoch of a token: its bits above 2^47. */
  private static long epochOf(long token) {
    return token / EPOCH_SPAN;
  }

  /** The node's config epoch, as CLUSTER INFO says. */
  private static long configEpochOf(RedisServer node) {
    return Long.parseLong(field(node.redis().clusterInfo(), "cluster_my_epoch"));
  }

  /** The node's replication ID: the ID of its tenure as a master (prelude.lua's master_tenure). */
  private static String tenureOf(RedisServer node) {
    return field(node.redis().info("replication"), "master_replid");
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n", -1)) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    throw new AssertionError("no " + name + " in " + info);
  }
}
