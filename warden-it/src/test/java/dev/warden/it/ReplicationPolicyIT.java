package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LockHandle;
import dev.warden.Replication;
import dev.warden.ReplicationException;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The replication policy on a master with one replica: acknowledged when the replica is healthy,
 * the shortfall reported ({@code awaitReplicas}) or undone and failed ({@code requireReplicas})
 * when it is paused (SIGSTOP), and {@code WAIT} on a connection of its own, so that a call on the
 * shared connection is not queued behind a pending {@code WAIT}.
 */
class ReplicationPolicyIT {
  private static RedisServer master;
  private static RedisServer replica;

  @BeforeAll
  static void startMasterAndReplica() {
    master = RedisServer.start();
    replica = RedisServer.startReplicaOf(master);
  }

  @AfterAll
  static void stop() {
    replica.close();
    master.close();
  }

  @BeforeEach
  void healthyAndEmpty() {
    replica.resume();
    master.flushAll();
    replica.awaitLinkUp(Duration.ofSeconds(10));
  }

  @AfterEach
  void resumeReplica() {
    replica.resume();
  }

  private static Warden connect(Replication replication) {
    return Warden.builder()
        .uri(master.uri())
        .commandTimeout(Duration.ofSeconds(5))
        .replication(replication)
        .build();
  }

  private static boolean lockKeyOnMaster(String name) {
    return master.redis().exists("warden:{" + name + "}:lock") == 1;
  }

  @Test
  void aHealthyReplicaAcknowledgesEveryAcquisition() throws Exception {
    try (Warden warden = connect(Replication.requireReplicas(1, Duration.ofSeconds(2)))) {
      DistributedLock lock = warden.lock("r-healthy");
      try (LockHandle handle = lock.acquire(Duration.ofSeconds(1))) {
        assertThat(handle.acknowledgedReplicas()).isEqualTo(1);
        // acknowledged means the replica has it
        assertThat(replica.redis().exists("warden:{r-healthy}:lock")).isEqualTo(1);
      }
      assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
      lock.unlock();
      assertThat(warden.stats().replicatedAcquisitions()).isEqualTo(2);
      assertThat(warden.stats().replicationShortfalls()).isZero();
    }
  }

  @Test
  void awaitReplicasReportsAShortfallAndKeepsTheHold() throws Exception {
    try (Warden warden = connect(Replication.awaitReplicas(1, Duration.ofMillis(200)))) {
      replica.pause(Duration.ofSeconds(30));
      DistributedLock lock = warden.lock("r-await");
      try (LockHandle handle = lock.acquire(Duration.ofSeconds(1))) {
        assertThat(handle.acknowledgedReplicas()).isZero();
        assertThat(handle.isHeld()).isTrue();
      }
      assertThat(warden.stats().replicationShortfalls()).isEqualTo(1);
    }
  }

  @Test
  void requireReplicasUndoesAShortfallRetriesWithinTheWaitAndFails() throws Exception {
    try (Warden warden = connect(Replication.requireReplicas(1, Duration.ofMillis(200)))) {
      replica.pause(Duration.ofSeconds(30));
      DistributedLock lock = warden.lock("r-require");
      assertThatThrownBy(() -> lock.tryLock(0, TimeUnit.SECONDS))
          .isInstanceOf(ReplicationException.class)
          .hasMessageContaining("r-require");
      // the give-back is not waited for, but it is sent first: a later call of this client finds
      // the lock free
      assertThat(lock.isLocked()).isFalse();
      assertThat(lockKeyOnMaster("r-require")).isFalse();
      assertThat(lock.isHeldByCurrentThread()).isFalse();
      assertThat(lock.getHoldCount()).isZero();

      long started = System.nanoTime();
      assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(700)))
          .isInstanceOf(ReplicationException.class);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(tookMillis).as("retried until the wait ran out").isGreaterThanOrEqualTo(700);
      assertThat(lock.isLocked()).isFalse();
      assertThat(lockKeyOnMaster("r-require")).isFalse();
      assertThat(warden.stats().replicationShortfalls()).isGreaterThanOrEqualTo(4);
      assertThat(warden.stats().holds()).isZero();
    }
  }

  @Test
  void requireReplicasWaitsForTheReplicasNoLongerThanTheCallersWaitAllows() throws Exception {
    try (Warden warden = connect(Replication.requireReplicas(1, Duration.ofSeconds(2)))) {
      replica.pause(Duration.ofSeconds(30));
      DistributedLock lock = warden.lock("r-bounded");
      long started = System.nanoTime();
      assertThatThrownBy(() -> lock.tryLock(200, TimeUnit.MILLISECONDS))
          .isInstanceOf(ReplicationException.class)
          .hasMessageContaining("r-bounded");
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      // the bound is the wait plus 500 ms (not the policy's 2 s); the rest is room for a busy
      // machine
      assertThat(tookMillis).isLessThan(200L + 500L + 500L);
      await().atMost(Duration.ofSeconds(5)).until(() -> !lockKeyOnMaster("r-bounded"));
      assertThat(warden.stats().holds()).isZero();
    }
  }

  @Test
  void withTheMasterFrozenDuringWaitTheShortfallIsGivenBackWithoutWaitingForIt() throws Exception {
    try (Warden warden = connect(Replication.requireReplicas(1, Duration.ofSeconds(1)))) {
      DistributedLock lock = warden.lock("r-frozen");
      assertThat(lock.tryLock()).isTrue(); // warm: scripts loaded, the WAIT connection open
      lock.unlock();
      replica.pause(Duration.ofSeconds(30));
      ExecutorService caller = Executors.newSingleThreadExecutor();
      Future<Long> tookMillis =
          caller.submit(
              () -> {
                long started = System.nanoTime();
                assertThatThrownBy(() -> lock.tryLock(200, TimeUnit.MILLISECONDS))
                    .isInstanceOf(ReplicationException.class);
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
              });
      caller.shutdown();
      // the WAIT is pending (the replica is paused): now the master freezes too
      await()
          .atMost(Duration.ofSeconds(2))
          .until(() -> master.redis().info("clients").contains("blocked_clients:1"));
      master.pause(Duration.ofSeconds(10));
      try {
        // neither the WAIT's reply nor the give-back's is waited for past the wait plus 500 ms;
        // the rest is room for a busy machine
        assertThat(tookMillis.get(20, TimeUnit.SECONDS)).isLessThan(200L + 500L + 500L);
        assertThat(warden.stats().holds()).isZero();
      } finally {
        master.resume();
      }
      // the give-back was sent, and runs once the master answers again
      await().atMost(Duration.ofSeconds(5)).until(() -> !lockKeyOnMaster("r-frozen"));
    }
  }

  @Test
  void aCallOnTheSharedConnectionCompletesWhileAWaitIsPending() throws Exception {
    try (Warden warden = connect(Replication.awaitReplicas(1, Duration.ofSeconds(3)))) {
      DistributedSemaphore semaphore = warden.semaphore("r-unrelated");
      assertThat(semaphore.trySetPermits(1)).isTrue();
      replica.pause(Duration.ofSeconds(30));
      // its own thread: a blocked common-pool worker would delay other callbacks
      ExecutorService slowThread = Executors.newSingleThreadExecutor();
      CompletableFuture<LockHandle> slow =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return warden.lock("r-slow").acquire(Duration.ofSeconds(1));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              },
              slowThread);
      slowThread.shutdown(); // ends after the acquisition
      // the WAIT is pending: the master counts a blocked client
      await()
          .atMost(Duration.ofSeconds(2))
          .until(() -> master.redis().info("clients").contains("blocked_clients:1"));
      long started = System.nanoTime();
      assertThat(semaphore.tryAcquire()).isTrue(); // the shared connection, same Warden
      assertThat(warden.lock("r-other").isLocked()).isFalse();
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(slow).as("the WAIT is still pending").isNotDone();
      System.out.printf("calls during a pending WAIT took %d ms%n", tookMillis);
      try (LockHandle handle = slow.get(10, TimeUnit.SECONDS)) {
        assertThat(handle.acknowledgedReplicas()).isZero();
      }
    }
  }

  @Test
  void onSentinelTheMastersReplicasAcknowledgeAndAPausedOneIsAShortfall() throws Exception {
    try (RedisSentinels sentinels = RedisSentinels.start();
        Warden warden =
            Warden.builder()
                .uri(sentinels.uri())
                .replication(Replication.requireReplicas(2, Duration.ofMillis(300)))
                .build()) {
      DistributedLock lock = warden.lock("r-sentinel");
      try (LockHandle handle = lock.acquire(Duration.ofSeconds(1))) {
        assertThat(handle.acknowledgedReplicas()).isEqualTo(2);
      }
      sentinels.replicas().get(0).pause(Duration.ofSeconds(5));
      assertThatThrownBy(() -> lock.tryLock(0, TimeUnit.SECONDS))
          .isInstanceOf(ReplicationException.class);
      assertThat(lock.isLocked()).isFalse(); // after the give-back, on the same connection
      assertThat(sentinels.master().redis().exists("warden:{r-sentinel}:lock")).isZero();
      sentinels.replicas().get(0).resume();
    }
  }

  @Test
  void onClusterTheWaitGoesToEachLocksOwnMaster() throws Exception {
    try (RedisCluster cluster = RedisCluster.start(3, 1, Duration.ofSeconds(1));
        Warden warden =
            Warden.builder()
                .cluster(cluster.seeds().toArray(new String[0]))
                .replication(Replication.requireReplicas(1, Duration.ofMillis(300)))
                .build()) {
      for (String name : List.of("r-a", "r-b", "r-c", "r-d")) {
        try (LockHandle handle = warden.lock(name).acquire(Duration.ofSeconds(1))) {
          assertThat(handle.acknowledgedReplicas()).as(name).isEqualTo(1);
        }
      }
      String key = "warden:{r-paused}:lock";
      RedisServer owner = cluster.masterOf(key);
      cluster.pauseReplication(cluster.replicaOf(owner), Duration.ofSeconds(3));
      assertThatThrownBy(() -> warden.lock("r-paused").tryLock(0, TimeUnit.SECONDS))
          .isInstanceOf(ReplicationException.class);
      assertThat(warden.lock("r-paused").isLocked()).isFalse(); // after the give-back
      assertThat(owner.redis().exists(key)).isZero();
    }
  }

  @Test
  void badPoliciesAreRejectedNamingTheArgument() {
    assertThatThrownBy(() -> Replication.awaitReplicas(0, Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replicas must be positive: 0");
    assertThatThrownBy(() -> Replication.requireReplicas(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .uri(master.uri())
                    .commandTimeout(Duration.ofSeconds(1))
                    .replication(Replication.awaitReplicas(1, Duration.ofSeconds(2)))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("command timeout");
    assertThat(Replication.none().isNone()).isTrue();
  }
}
