package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where a parked client's sharded subscription goes at a graceful failover. The demoted master
 * pushes {@code sunsubscribe}; it is now the new master's replica, which accepts an SSUBSCRIBE for
 * the slot (no MOVED) but gets nothing the new master publishes until the new master counts it
 * among its replicas. The client must not subscribe there again, but on the new master.
 */
class ClusterResubscriptionIT {
  private static RedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Test
  void aParkedClientsSubscriptionDroppedByTheDemotedMasterIsMadeOnTheNewMasterNotAgainThere()
      throws Exception {
    RedisServer master = cluster.masters().get(0);
    RedisServer replica = cluster.replicaOf(master);
    String name = ClusterNames.on(cluster, master, "resubscribe");
    String channel = "warden:{" + name + "}:lock:released";
    // re-checks 30 s apart: the waiter gets the lock within the test only through a wake-up
    try (Warden holder = Warden.builder().cluster(cluster.seeds().toArray(String[]::new)).build();
        Warden waiting =
            Warden.builder()
                .cluster(cluster.seeds().toArray(String[]::new))
                .recheckInterval(Duration.ofSeconds(30))
                .build()) {
      LockHandle held = holder.lock(name).tryAcquire(Duration.ZERO).orElseThrow();
      DistributedLock lock = waiting.lock(name);
      CompletableFuture<Boolean> acquired =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  if (!lock.tryLock(20, TimeUnit.SECONDS)) {
                    return false;
                  }
                  lock.unlock();
                  return true;
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return false;
                }
              });
      await().atMost(Duration.ofSeconds(5)).until(() -> shardSubscribers(master, channel) == 1L);

      // Every count of the old master's subscribers from here on, changes only.
      List<Long> onOldMaster = new CopyOnWriteArrayList<>(List.of(1L));
      AtomicBoolean watching = new AtomicBoolean(true);
      CompletableFuture<Void> watcher =
          CompletableFuture.runAsync(
              () -> {
                while (watching.get()) {
                  long count = shardSubscribers(master, channel);
                  if (count != onOldMaster.get(onOldMaster.size() - 1)) {
                    onOldMaster.add(count);
                  }
                }
              });
      cluster.failover(replica, RedisCluster.Mode.GRACEFUL);
      await().atMost(Duration.ofSeconds(5)).until(() -> shardSubscribers(replica, channel) == 1L);
      watching.set(false);
      watcher.get(5, TimeUnit.SECONDS);
      assertThat(onOldMaster)
          .as("subscribers of %s on the demoted master, each change", channel)
          .containsExactly(1L, 0L);

      held.close();
      assertThat(acquired.get(10, TimeUnit.SECONDS)).as("the parked waiter got the lock").isTrue();
    }
  }

  private static long shardSubscribers(RedisServer node, String channel) {
    return node.redis().pubsubShardNumsub(channel).get(channel);
  }
}
