package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import io.lettuce.core.KillArgs;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code credentials(...)} on a 3+3 Redis Cluster: a streaming provider re-authenticates the
 * connections to every node as it sends new credentials, and connections cut afterwards come back
 * with them; locks on every shard keep working.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterCredentialsIT {
  private static final String OLD = "Old-Cluster-T0ken-31";
  private static final String NEW = "New-Cluster-T0ken-92";
  private static final Pattern CLIENT =
      Pattern.compile("^id=\\d+ .*? age=(\\d+) idle=(\\d+) .*? cmd=(\\S+) user=(\\S+)");

  @Test
  void everyNodesConnectionsFollowTheStreamedCredentials(RedisCluster cluster) throws Throwable {
    String rule = WardenAcl.SINGLE_SERVER + " " + WardenAcl.CLUSTER;
    for (RedisServer node : cluster.nodes()) {
      WardenAcl.createUser(node, "app-1", OLD, rule);
      WardenAcl.createUser(node, "app-2", NEW, rule);
    }
    CredentialsIT.StreamingCredentials streaming =
        new CredentialsIT.StreamingCredentials("app-1", OLD);
    String[] seeds = cluster.seeds().toArray(String[]::new);
    String output =
        SecretsIT.captured(
            text -> {
              try (Warden warden = Warden.builder().cluster(seeds).credentials(streaming).build();
                  Warden other = Warden.builder().cluster(seeds).build()) {
                CredentialsIT.useThroughTheRotation(
                    warden, other, streaming, () -> clients(cluster), "app-2", NEW, false);
                for (RedisServer master : cluster.masters()) {
                  master.redis().clientKill(KillArgs.Builder.user("app-2"));
                }
                for (String name : ClusterNames.onEveryShard(cluster, "after-cut")) {
                  DistributedLock lock = warden.lock(name);
                  assertThat(lock.tryLock(10, TimeUnit.SECONDS)).as(name).isTrue();
                  lock.unlock();
                }
                await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(clients(cluster)).containsValue("app-2"));
                assertThat(clients(cluster).values()).containsOnly("app-2");
                text.append(warden.stats()).append(warden.activity());
              }
            });
    assertThat(output).doesNotContain(OLD).doesNotContain(NEW);
  }

  /**
   * The test users' connections on every node: client id (node port in front) to user. Left out:
   * the cluster connections' own default channels, which sent CLUSTER MYID at connect and nothing
   * since (idle as long as they live): Lettuce does not re-authenticate them, and Warden sends
   * nothing over them (docs/operations.md, "Rotating credentials").
   */
  private static Map<Long, String> clients(RedisCluster cluster) {
    Map<Long, String> all = new TreeMap<>();
    for (RedisServer node : cluster.nodes()) {
      for (String line : node.redis().clientList().split("\n", -1)) {
        Matcher m = CLIENT.matcher(line);
        if (!m.find() || m.group(4).equals("default") || m.group(4).equals("(superuser)")) {
          continue;
        }
        boolean unusedDefaultChannel =
            m.group(3).equals("cluster|myid") && m.group(1).equals(m.group(2));
        if (!unusedDefaultChannel) {
          all.put(
              node.port() * 1_000_000L + Long.parseLong(m.group(0).split("[ =]", -1)[1]),
              m.group(4));
        }
      }
    }
    return all;
  }
}
