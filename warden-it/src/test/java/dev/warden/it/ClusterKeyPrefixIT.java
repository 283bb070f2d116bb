package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code keyPrefix} on a 3+3 Redis Cluster: two prefixes lock the same names at once on every
 * shard; a prefixed object's keys stay in its name's slot, so multi-locks and wake-ups (sharded
 * pub/sub on the slot's master) work as without a prefix; and a user confined to one prefix by the
 * cluster rule uses every primitive.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterKeyPrefixIT {
  private static final String PASSWORD = "cluster-prefix-pw";

  @Test
  void twoPrefixesLockTheSameNamesAtOnceOnEveryShardInTheNamesOwnSlots(
      RedisCluster cluster, WardenFactory wardens) throws Exception {
    Warden billing = wardens.create(builder -> builder.keyPrefix("billing"));
    Warden shipping = wardens.create(builder -> builder.keyPrefix("shipping"));
    List<String> names = ClusterNames.onEveryShard(cluster, "prefixed");
    List<DistributedLock> held = new ArrayList<>();
    for (String name : names) {
      DistributedLock billingLock = billing.lock(name);
      DistributedLock shippingLock = shipping.lock(name);
      assertThat(billingLock.tryLock()).isTrue();
      assertThat(shippingLock.tryLock()).as("the other prefix's lock of %s", name).isTrue();
      held.add(billingLock);
      held.add(shippingLock);
      String key = billing.inspect(name).key();
      assertThat(key).isEqualTo("billing:warden:{" + name + "}:lock");
      assertThat(SlotHash.getSlot(key))
          .as("the prefix keeps the name's slot")
          .isEqualTo(ClusterNames.slotOf(name));
      RedisServer master = cluster.ownerOf(ClusterNames.slotOf(name));
      assertThat(master.redis().exists(key, "shipping:warden:{" + name + "}:lock")).isEqualTo(2);
    }

    // a waiter of billing is woken through billing's sharded channel on the slot's master
    String name = names.get(0);
    Warden billingToo = wardens.create(builder -> builder.keyPrefix("billing"));
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(() -> tryLockAndUnlock(billingToo.lock(name)));
    RedisServer master = cluster.ownerOf(ClusterNames.slotOf(name));
    org.awaitility.Awaitility.await()
        .untilAsserted(
            () ->
                assertThat(master.redis().pubsubShardChannels())
                    .contains("billing:warden:{" + name + "}:lock:released"));
    held.get(0).unlock();
    assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
    assertThat(held.get(1).isLocked()).as("shipping's lock stays held").isTrue();
    for (DistributedLock lock : held.subList(1, held.size())) {
      lock.unlock();
    }

    DistributedLock all =
        billing.multiLock(names.stream().map(billing::lock).toArray(DistributedLock[]::new));
    DistributedLock allOfShipping =
        shipping.multiLock(names.stream().map(shipping::lock).toArray(DistributedLock[]::new));
    assertThat(all.tryLock(5, TimeUnit.SECONDS)).isTrue();
    assertThat(allOfShipping.tryLock(5, TimeUnit.SECONDS)).isTrue();
    all.unlock();
    allOfShipping.unlock();
  }

  @Test
  void aUserConfinedToOnePrefixByTheClusterRuleUsesEveryPrimitive(RedisCluster cluster)
      throws Exception {
    String rule = WardenAcl.singleServer("billing") + " " + WardenAcl.CLUSTER;
    cluster.nodes().forEach(node -> WardenAcl.createUser(node, "billing-app", PASSWORD, rule));
    String[] seeds =
        cluster.seeds().stream()
            .map(seed -> seed.replace("redis://", "redis://billing-app:" + PASSWORD + "@"))
            .toArray(String[]::new);
    try (Warden first = Warden.builder().cluster(seeds).keyPrefix("billing").build();
        Warden second = Warden.builder().cluster(seeds).keyPrefix("billing").build()) {
      AclDeploymentsIT.useEveryKind(first, second);
      KeyPrefixIT.useAConditionAFairQueueAndAMultiLock(first);
    }
    for (RedisServer node : cluster.nodes()) {
      assertThat(node.redis().aclLog()).as("ACL log of %s", node.uri()).isEmpty();
    }
  }

  private static boolean tryLockAndUnlock(DistributedLock lock) {
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
}
