package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code synchronizerIdleExpiry} on a 3+3 Redis Cluster: a semaphore, a leased semaphore and a
 * count-down latch on every shard expire from their slot's master once idle, and answer as {@code
 * SyncIdleExpiryIT} states (a semaphore as if never set, a latch open), under a key prefix.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterSyncIdleExpiryIT {
  private static final Duration IDLE = Duration.ofSeconds(2);

  @Test
  void idleSynchronizersOnEveryShardExpireFromTheirSlotsMaster(
      RedisCluster cluster, WardenFactory wardens) throws Exception {
    Warden warden =
        wardens.create(
            builder ->
                builder
                    .keyPrefix("jobs")
                    .synchronizerIdleExpiry(IDLE)
                    .commandTimeout(Duration.ofSeconds(1))); // at most half the expiry
    List<String> names = ClusterNames.onEveryShard(cluster, "idle");
    for (String name : names) {
      RedisServer master = cluster.ownerOf(ClusterNames.slotOf(name));
      DistributedSemaphore semaphore = warden.semaphore(name);
      assertThat(semaphore.trySetPermits(2)).isTrue();
      assertThat(semaphore.tryAcquire()).isTrue();
      semaphore.release();
      LeasedSemaphore leased = warden.leasedSemaphore(name);
      assertThat(leased.trySetPermits(1)).isTrue();
      String permit = leased.tryAcquire();
      assertThat(permit).isNotNull();
      leased.release(permit);
      DistributedCountDownLatch latch = warden.countDownLatch(name);
      assertThat(latch.trySetCount(2)).isTrue();
      latch.countDown();
      String prefix = "jobs:warden:{" + name + "}:";
      assertThat(master.redis().pttl(prefix + "semaphore")).isBetween(1L, IDLE.toMillis());
      assertThat(master.redis().pttl(prefix + "latch")).isBetween(1L, IDLE.toMillis());
      assertThat(master.redis().exists(prefix + "leased-semaphore")).isEqualTo(1);
    }
    for (String name : names) {
      RedisServer master = cluster.ownerOf(ClusterNames.slotOf(name));
      String prefix = "jobs:warden:{" + name + "}:";
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  master
                          .redis()
                          .exists(
                              prefix + "semaphore", prefix + "latch", prefix + "leased-semaphore")
                      == 0);
      assertThat(warden.semaphore(name).availablePermits()).as("as if never set").isZero();
      assertThat(warden.leasedSemaphore(name).availablePermits()).isZero();
      assertThat(warden.countDownLatch(name).getCount()).as("an expired latch is open").isZero();
      assertThat(warden.countDownLatch(name).await(0, TimeUnit.SECONDS)).isTrue();
    }
  }
}
