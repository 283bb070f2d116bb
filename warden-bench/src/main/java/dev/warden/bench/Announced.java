package dev.warden.bench;

import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits until a cluster's nodes all know each other by the addresses they were told to announce.
 */
final class Announced {
  private static final Duration LIMIT = Duration.ofSeconds(20);

  private Announced() {}

  /**
   * Returns once every node's {@code CLUSTER NODES} lists every node at its address in {@code
   * announced} ({@code host:port}).
   *
   * @throws IllegalStateException if that takes longer than 20 s, naming a node still behind
   */
  static void await(Map<RedisServer, String> announced) {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (true) {
      String behind = null;
      for (RedisServer node : announced.keySet()) {
        String nodes = node.redis().clusterNodes();
        for (String address : announced.values()) {
          if (!nodes.contains(" " + address + "@")) {
            behind = node + " does not list " + address + " yet:\n" + nodes;
          }
        }
      }
      if (behind == null) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the cluster's new addresses did not spread: " + behind);
      }
      // Gossip has no event to wait on: poll it.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }
}
