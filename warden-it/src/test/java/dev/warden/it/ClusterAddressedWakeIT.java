package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Addressed wake-ups on a 3+3 Redis Cluster: a waiting client subscribes (SSUBSCRIBE) to the
 * object's shared channel and to its own one on the object's shard, and the release that gives it
 * its turn (a direct grant, of the reentrant lock or of the fair lock to its head) is one SPUBLISH
 * there, heard by that client: it takes the lock long before its one-minute re-check.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(value = WardenDeployment.Kind.CLUSTER, shared = true)
class ClusterAddressedWakeIT {

  @ParameterizedTest
  @ValueSource(strings = {"lock", "fair"})
  @WardenOptions(recheckIntervalMillis = 60_000)
  void theReleaseIsOneShardedPublishOnTheWaitingClientsOwnChannel(
      String type, RedisCluster cluster, WardenFactory wardens) throws Exception {
    RedisServer master = cluster.masters().get(1);
    String name = ClusterNames.on(cluster, master, "addressed-" + type);
    String shared = "warden:{" + name + "}:" + type + ":released";
    DistributedLock held = lockOf(wardens.create(), type, name);
    held.lock();
    DistributedLock waiting = lockOf(wardens.create(), type, name);
    CompletableFuture<Long> holds = new CompletableFuture<>();
    CompletableFuture<Void> checked = new CompletableFuture<>();
    CompletableFuture<Void> waiter = Waiters.holdingUntil(waiting, holds, checked, 30);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> master.redis().pubsubShardChannels(shared + "*").size() == 2);
    List<String> channels = master.redis().pubsubShardChannels(shared + ":*");
    assertThat(channels).hasSize(1);
    String addressed = channels.get(0);
    assertThat(master.redis().pubsubShardNumsub(addressed).get(addressed)).isOne();
    // a listener on the shared channel alone (as a client of a previous version would be)
    BlockingQueue<String> onShared = new LinkedBlockingQueue<>();
    RedisClient client = RedisClient.create(master.uri());
    try (StatefulRedisPubSubConnection<String, String> listener = client.connectPubSub()) {
      listener.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
              onShared.add(message);
            }
          });
      listener.sync().ssubscribe(shared);
      long before = ClusterNames.commandStats(master, "spublish")[0];
      long acquisitions = ClusterNames.commandStats(master, "exists")[0];

      held.unlock();
      holds.get(10, TimeUnit.SECONDS);
      if (type.equals("lock")) {
        // the SPUBLISH carried a direct grant (DirectGrantIT): the waiter ran no lock-acquire
        // (each runs EXISTS first)
        assertThat(ClusterNames.commandStats(master, "exists")[0]).isEqualTo(acquisitions);
      }
      assertThat(ClusterNames.commandStats(master, "spublish")[0] - before)
          .as("one SPUBLISH, heard on %s: no second one on the shared channel", addressed)
          .isOne();
      master.redis().spublish(shared, "marker"); // messages arrive in order: the marker comes first
      assertThat(onShared.poll(10, TimeUnit.SECONDS)).isEqualTo("marker");
    } finally {
      client.shutdown();
    }
    checked.complete(null);
    waiter.get(10, TimeUnit.SECONDS);
  }

  private static DistributedLock lockOf(Warden warden, String type, String name) {
    return type.equals("fair") ? warden.fairLock(name) : warden.lock(name);
  }
}
