package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What keeping up with a Redis Cluster's topology costs an idle client: connections the nodes
 * accepted ({@code INFO stats total_connections_received}) over a window, counts not timings.
 * Lettuce's topology refresh opens a connection to every node; it runs every 30 s and when
 * something changed (the epoch watch, redirections, reconnects), no longer every second.
 */
class ClusterTopologyIT {
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
  void anIdleClientOpensAtMostOneRoundOfConnectionsInTenSeconds() {
    try (Warden warden = ClusterNames.warden(cluster, Duration.ofSeconds(30))) {
      for (String name : ClusterNames.onEveryShard(cluster, "idle")) {
        DistributedLock lock = warden.lock(name);
        lock.lock();
        lock.unlock();
      }
      connectionsReceived(); // the test's own connections to the nodes, opened once
      // the epoch watch's first round over the masters (connections the client already has)
      idleFor(Duration.ofSeconds(4), warden);
      long before = connectionsReceived();
      idleFor(Duration.ofSeconds(10), warden);
      long opened = connectionsReceived() - before;
      System.out.printf("[cluster] an idle client opened %d connections in 10 s%n", opened);
      assertThat(opened)
          .as("at most one periodic refresh (a connection to each of %d nodes)", nodes())
          .isLessThanOrEqualTo(nodes());
    }
  }

  private static int nodes() {
    return cluster.nodes().size();
  }

  private static void idleFor(Duration window, Warden warden) {
    await()
        .during(window)
        .atMost(window.plusSeconds(5))
        .until(() -> warden.stats().acquisitions() == 0);
  }

  private static long connectionsReceived() {
    long total = 0;
    for (RedisServer node : cluster.nodes()) {
      for (String line : node.redis().info("stats").lines().toList()) {
        if (line.startsWith("total_connections_received:")) {
          total += Long.parseLong(line.substring("total_connections_received:".length()).trim());
        }
      }
    }
    return total;
  }
}
