package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.Replication;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code keyPrefix}: every key and channel of every primitive lives under {@code <prefix>:warden:},
 * two prefixes are two namespaces that never see each other even for the same names, and an ACL
 * user confined to one prefix can use every primitive there and nothing outside it. {@link
 * ClusterKeyPrefixIT} does the same on a cluster.
 */
@ExtendWith(WardenExtension.class)
class KeyPrefixIT {
  private static final String PASSWORD = "key-prefix-pw";

  @Test
  void twoPrefixesLockTheSameNameAtOnceAndNeverSeeEachOthersObjects(WardenFactory wardens)
      throws Exception {
    Warden billing = wardens.create(builder -> builder.keyPrefix("billing"));
    Warden shipping = wardens.create(builder -> builder.keyPrefix("shipping"));
    Warden plain = wardens.create();

    DistributedLock billingOrders = billing.lock("orders");
    DistributedLock shippingOrders = shipping.lock("orders");
    DistributedLock plainOrders = plain.lock("orders");
    assertThat(billingOrders.tryLock()).isTrue();
    assertThat(shippingOrders.tryLock()).as("another prefix: another lock").isTrue();
    assertThat(plainOrders.tryLock()).as("no prefix: yet another lock").isTrue();
    assertThat(billing.inspect("orders").key()).isEqualTo("billing:warden:{orders}:lock");
    assertThat(billing.inspect("orders").holders()).hasSize(1);
    assertThat(shipping.inspect("orders").key()).isEqualTo("shipping:warden:{orders}:lock");
    assertThat(shippingOrders.fencingToken()).isPositive();

    // the same prefix is the same namespace: a second instance of billing waits for the first
    Warden billingToo = wardens.create(builder -> builder.keyPrefix("billing"));
    assertThat(billingToo.lock("orders").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
    billingOrders.unlock();
    assertThat(billingToo.lock("orders").tryLock(5, TimeUnit.SECONDS)).isTrue();
    billingToo.lock("orders").unlock();
    assertThat(shippingOrders.isLocked()).as("billing's release leaves shipping's lock").isTrue();
    shippingOrders.unlock();
    plainOrders.unlock();

    DistributedSemaphore billingPool = billing.semaphore("pool");
    assertThat(billingPool.trySetPermits(2)).isTrue();
    assertThat(shipping.semaphore("pool").availablePermits()).isZero();
    assertThat(shipping.semaphore("pool").trySetPermits(5)).isTrue();
    assertThat(billingPool.availablePermits()).isEqualTo(2);
    assertThat(billing.countDownLatch("done").trySetCount(1)).isTrue();
    assertThat(shipping.countDownLatch("done").getCount()).isZero();
  }

  @Test
  void everyKeyAndChannelOfEveryPrimitiveStartsWithThePrefix(RedisServer redis) throws Exception {
    redis.redis().configSet("notify-keyspace-events", "KA");
    Set<String> keys = ConcurrentHashMap.newKeySet();
    Set<String> channels = ConcurrentHashMap.newKeySet();
    RedisClient client = RedisClient.create(redis.uri());
    try (RedisServer replica = RedisServer.startReplicaOf(redis);
        StatefulRedisPubSubConnection<String, String> everything = client.connectPubSub()) {
      replica.awaitLinkUp(Duration.ofSeconds(10));
      everything.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
              if (channel.startsWith("__keyspace@")) {
                keys.add(channel.substring(channel.indexOf("__:") + 3));
              } else {
                channels.add(channel);
              }
            }
          });
      everything.sync().psubscribe("*"); // every keyspace event and every PUBLISH
      try (Warden first =
              Warden.builder()
                  .uri(redis.uri())
                  .keyPrefix("team-a:billing")
                  .replication(Replication.awaitReplicas(1, Duration.ofSeconds(1)))
                  .build();
          Warden second = Warden.builder().uri(redis.uri()).keyPrefix("team-a:billing").build()) {
        AclDeploymentsIT.useEveryKind(first, second);
        useAConditionAFairQueueAndAMultiLock(first);
        channels.addAll(redis.redis().pubsubChannels()); // the wake-up subscriptions still open
      }
    } finally {
      client.shutdown();
      redis.redis().configSet("notify-keyspace-events", "");
    }
    assertThat(keys)
        .as("keys Warden touched")
        .isNotEmpty()
        .allMatch(key -> key.startsWith("team-a:billing:warden:{"), "start with the prefix")
        .anyMatch(key -> key.endsWith(":replicated")) // the replication marker
        .anyMatch(key -> key.contains(":cond:")) // a condition's keys
        .anyMatch(key -> key.endsWith(":fair:queue")) // a fair lock's queue
        .anyMatch(key -> key.endsWith("}:probe")); // the capability check's probe
    assertThat(channels)
        .as("channels Warden published on or subscribed to")
        .isNotEmpty()
        .allMatch(channel -> channel.startsWith("team-a:billing:warden:{"), "start with the prefix")
        .anyMatch(channel -> channel.endsWith(":lock:released"));
  }

  @Test
  void anAclUserConfinedToOnePrefixUsesEveryPrimitiveAndIsRefusedOutsideIt(RedisServer redis)
      throws Exception {
    WardenAcl.createUser(redis, "billing-app", PASSWORD, WardenAcl.singleServer("billing"));
    String uri = "redis://billing-app:" + PASSWORD + "@" + redis.host() + ":" + redis.port();
    try (Warden first = Warden.builder().uri(uri).keyPrefix("billing").build();
        Warden second = Warden.builder().uri(uri).keyPrefix("billing").build()) {
      AclDeploymentsIT.useEveryKind(first, second);
      useAConditionAFairQueueAndAMultiLock(first);
    }
    assertThat(redis.redis().aclLog()).as("nothing was refused under the prefix").isEmpty();

    assertThatThrownBy(() -> Warden.builder().uri(uri).keyPrefix("shipping").build())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("scripts (EVALSHA, EVAL): refused")
        .hasMessageContaining("~shipping:warden:* covers every key Warden uses")
        .hasMessageNotContaining(PASSWORD);
    assertThatThrownBy(() -> Warden.connect(uri))
        .as("no prefix is outside the prefix too")
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("~warden:* covers every key Warden uses");
    assertThat(redis.redis().keys("*"))
        .as("nothing was written outside the prefix")
        .allMatch(key -> key.startsWith("billing:warden:"));
  }

  @Test
  void aPrefixThatWouldMoveTheHashTagOrWidenAnAclPatternIsRefusedByName() {
    for (String prefix :
        List.of("", " ", "bil{ling}", "bil ling", "billing:", ":billing", "a::b", "bill*", "x?")) {
      assertThatThrownBy(() -> Warden.builder().keyPrefix(prefix))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("keyPrefix must be 1 to 64 letters")
          .hasMessageEndingWith("\"" + prefix + "\"");
    }
    assertThatThrownBy(() -> Warden.builder().keyPrefix(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(": null");
    assertThatThrownBy(() -> Warden.builder().keyPrefix("p".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 to 64");
  }

  /** A condition's await and signal, a fair lock's queue, and a multi-lock of two names. */
  static void useAConditionAFairQueueAndAMultiLock(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("with-condition");
    Condition ready = lock.newCondition("ready");
    CountDownLatch holding = new CountDownLatch(1);
    AtomicBoolean signalled = new AtomicBoolean();
    CompletableFuture<Boolean> awaiter =
        CompletableFuture.supplyAsync(
            () -> {
              lock.lock();
              try {
                holding.countDown();
                while (!signalled.get()) {
                  if (!ready.await(15, TimeUnit.SECONDS)) {
                    return false;
                  }
                }
                return true;
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              } finally {
                lock.unlock();
              }
            });
    assertThat(holding.await(15, TimeUnit.SECONDS)).isTrue();
    lock.lock(); // free only once the awaiter gave it up in await()
    try {
      signalled.set(true);
      ready.signalAll();
    } finally {
      lock.unlock();
    }
    assertThat(awaiter.get(20, TimeUnit.SECONDS)).isTrue();
    DistributedLock fair = warden.fairLock("queued");
    fair.lock();
    CompletableFuture<Boolean> queued =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                boolean taken = fair.tryLock(15, TimeUnit.SECONDS);
                if (taken) {
                  fair.unlock();
                }
                return taken;
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    org.awaitility.Awaitility.await().until(() -> warden.stats().parkedWaiters() > 0);
    fair.unlock();
    assertThat(queued.get(20, TimeUnit.SECONDS)).isTrue();
    DistributedLock both = warden.multiLock(warden.lock("multi-a"), warden.lock("multi-b"));
    assertThat(both.tryLock(5, TimeUnit.SECONDS)).isTrue();
    both.unlock();
  }
}
