package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Sentinel and Cluster additions to the ACL rule (docs/security.md): every kind of object, with
 * a waiter woken by a release, under a user with exactly the rule on every data node, and Redis's
 * ACL log empty on every node afterwards. The full contract suites run under the single-server rule
 * in {@link AclContractIT}.
 */
class AclDeploymentsIT {
  private static final String USER = "app";
  private static final String PASSWORD = "acl-deployments-pw";

  @Test
  void theClusterRuleIsEnoughOnEveryNode() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      String rule = WardenAcl.SINGLE_SERVER + " " + WardenAcl.CLUSTER;
      cluster.nodes().forEach(node -> WardenAcl.createUser(node, USER, PASSWORD, rule));
      String[] seeds =
          cluster.seeds().stream()
              .map(seed -> seed.replace("redis://", "redis://" + USER + ":" + PASSWORD + "@"))
              .toArray(String[]::new);
      try (Warden first = Warden.builder().cluster(seeds).build();
          Warden second = Warden.builder().cluster(seeds).build()) {
        useEveryKind(first, second);
        assertConnectedAsTheUser(cluster.nodes());
      }
      assertNothingRefused(cluster.nodes());
    }
  }

  @Test
  void theSentinelRuleIsEnoughOnTheDataNodes() throws Exception {
    try (RedisSentinels sentinels = RedisSentinels.start()) {
      String rule = WardenAcl.SINGLE_SERVER + " " + WardenAcl.SENTINEL;
      sentinels.servers().forEach(node -> WardenAcl.createUser(node, USER, PASSWORD, rule));
      String uri =
          sentinels
              .uri()
              .replace("redis-sentinel://", "redis-sentinel://" + USER + ":" + PASSWORD + "@");
      try (Warden first = Warden.connect(uri);
          Warden second = Warden.connect(uri)) {
        useEveryKind(first, second);
        assertConnectedAsTheUser(sentinels.servers());
      }
      assertNothingRefused(sentinels.servers());
    }
  }

  /** Uses every kind of object through two instances, with waiters woken by releases. */
  static void useEveryKind(Warden first, Warden second) throws Exception {
    for (String name : List.of("a", "b", "c", "d")) { // on several shards of a cluster
      DistributedLock held = first.lock(name);
      assertThat(held.tryLock()).isTrue();
      CompletableFuture<Boolean> waiter =
          CompletableFuture.supplyAsync(() -> tryLock(second.lock(name)));
      assertThat(second.inspect(name).holders()).hasSize(1);
      held.unlock(); // wakes the waiter through pub/sub
      assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();

      DistributedLock fair = first.fairLock(name);
      assertThat(fair.tryLock(5, TimeUnit.SECONDS)).isTrue();
      fair.unlock();
      DistributedLock write = first.readWriteLock(name).writeLock();
      assertThat(write.tryLock(5, TimeUnit.SECONDS)).isTrue();
      write.unlock();
      DistributedLock read = second.readWriteLock(name).readLock();
      assertThat(read.tryLock(5, TimeUnit.SECONDS)).isTrue();
      read.unlock();

      DistributedSemaphore semaphore = first.semaphore(name);
      assertThat(semaphore.trySetPermits(1)).isTrue();
      assertThat(semaphore.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
      semaphore.release();
      LeasedSemaphore leased = second.leasedSemaphore(name);
      assertThat(leased.trySetPermits(1)).isTrue();
      String permit = leased.tryAcquire(5, 10, TimeUnit.SECONDS);
      assertThat(permit).isNotNull();
      leased.release(permit);
      DistributedCountDownLatch latch = first.countDownLatch(name);
      assertThat(latch.trySetCount(1)).isTrue();
      CompletableFuture<Boolean> awaiter =
          CompletableFuture.supplyAsync(() -> await(second.countDownLatch(name)));
      latch.countDown();
      assertThat(awaiter.get(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static boolean tryLock(DistributedLock lock) {
    try {
      boolean taken = lock.tryLock(15, TimeUnit.SECONDS);
      if (taken) {
        lock.unlock();
      }
      return taken;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean await(DistributedCountDownLatch latch) {
    try {
      return latch.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Warden's connections run as the user, not as {@code default} (which may do anything). */
  private static void assertConnectedAsTheUser(List<RedisServer> nodes) {
    StringBuilder clients = new StringBuilder();
    for (RedisServer node : nodes) {
      clients.append(node.redis().clientList()).append('\n');
    }
    assertThat(clients.toString())
        .containsPattern("name=warden-\\S* .*user=" + USER + " ")
        .doesNotContainPattern("name=warden-\\S* .*user=default ");
  }

  private static void assertNothingRefused(List<RedisServer> nodes) {
    for (RedisServer node : nodes) {
      assertThat(node.redis().aclLog()).as("ACL log of %s", node.uri()).isEmpty();
    }
  }
}
