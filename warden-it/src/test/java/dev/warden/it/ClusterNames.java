package dev.warden.it;

import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Object names placed on chosen shards of a {@link RedisCluster}, and Wardens on a cluster. */
final class ClusterNames {
  private ClusterNames() {}

  /**
   * The slot of an object's keys: every key of object {@code name} carries the tag {@code {name}}.
   */
  static int slotOf(String name) {
    return SlotHash.getSlot("{" + name + "}");
  }

  /** One name per master, {@code prefix-N}, in the order of {@link RedisCluster#masters()}. */
  static List<String> onEveryShard(RedisCluster cluster, String prefix) {
    Map<Integer, String> byPort = new LinkedHashMap<>();
    for (RedisServer master : cluster.masters()) {
      byPort.put(master.port(), null);
    }
    for (int i = 0; byPort.containsValue(null); i++) {
      String name = prefix + "-" + i;
      int port = cluster.ownerOf(slotOf(name)).port();
      if (byPort.containsKey(port) && byPort.get(port) == null) {
        byPort.put(port, name);
      }
    }
    return new ArrayList<>(byPort.values());
  }

  /** A name, {@code prefix-N}, whose slot {@code master} owns. */
  static String on(RedisCluster cluster, RedisServer master, String prefix) {
    for (int i = 0; ; i++) {
      String name = prefix + "-" + i;
      if (cluster.ownerOf(slotOf(name)).port() == master.port()) {
        return name;
      }
    }
  }

  /** Calls and failed calls of one command on a node since it started, from INFO commandstats. */
  static long[] commandStats(RedisServer node, String command) {
    for (String line : node.redis().info("commandstats").split("\r?\n", -1)) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        long calls = 0;
        long failed = 0;
        for (String field : line.substring(line.indexOf(':') + 1).split(",", -1)) {
          if (field.startsWith("calls=")) {
            calls = Long.parseLong(field.substring("calls=".length()));
          } else if (field.startsWith("failed_calls=")) {
            failed = Long.parseLong(field.substring("failed_calls=".length()));
          }
        }
        return new long[] {calls, failed};
      }
    }
    return new long[] {0, 0};
  }

  /** A Warden on the cluster, with the given watchdog lease. */
  static Warden warden(RedisCluster cluster, Duration watchdogTimeout) {
    return Warden.builder()
        .cluster(cluster.seeds().toArray(String[]::new))
        .watchdogTimeout(watchdogTimeout)
        .build();
  }
}
