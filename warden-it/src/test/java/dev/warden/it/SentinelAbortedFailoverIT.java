package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Sentinel failover that is aborted after the leader selected a replica: Warden, which moves to
 * the selected replica at once, goes back to the master when the replica is not promoted. The
 * replicas refuse {@code SLAVEOF}/{@code REPLICAOF} to their default user (an ACL), so the leader's
 * promotion transaction fails and the failover times out. Its own class: the set may need a while
 * to settle afterwards.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelAbortedFailoverIT {

  @Test
  void wardenReturnsToTheMasterWhenTheSelectedReplicaIsNotPromoted(
      RedisSentinels set, WardenFactory wardens) throws Exception {
    Warden warden = wardens.create();
    DistributedLock lock = warden.lock("aborted");
    lock.lock();
    lock.unlock();
    RedisServer master = set.master();
    List<RedisServer> replicas = set.replicas();
    RedisClient client = RedisClient.create();
    try {
      for (RedisServer replica : replicas) {
        replica
            .redis()
            .aclSetuser(
                "default",
                AclSetuserArgs.Builder.removeCommand(CommandType.SLAVEOF)
                    .removeCommand(CommandType.REPLICAOF));
      }
      try (StatefulRedisSentinelConnection<String, String> sentinel =
          client.connectSentinel(RedisURI.create("127.0.0.1", set.sentinelPorts().get(0)))) {
        sentinel.sync().failover(set.masterName());
      }
      long requested = System.nanoTime();
      SwitchWatch.awaitNanos(
          Duration.ofSeconds(5),
          () -> replicas.stream().anyMatch(replica -> SwitchWatch.wardenClients(replica) > 0));
      long back =
          SwitchWatch.awaitNanos(
              Duration.ofSeconds(10),
              () ->
                  SwitchWatch.wardenClients(master) == 2
                      && replicas.stream()
                          .allMatch(replica -> SwitchWatch.wardenClients(replica) == 0));
      assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
      assertThat(master.redis().exists("warden:{aborted}:lock")).isOne();
      lock.unlock();
      System.out.printf(
          "Aborted Sentinel failover: Warden was back on the master %d ms after SENTINEL"
              + " FAILOVER%n",
          TimeUnit.NANOSECONDS.toMillis(back - requested));
    } finally {
      for (RedisServer replica : replicas) {
        replica
            .redis()
            .aclSetuser(
                "default",
                AclSetuserArgs.Builder.addCommand(CommandType.SLAVEOF)
                    .addCommand(CommandType.REPLICAOF));
      }
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
