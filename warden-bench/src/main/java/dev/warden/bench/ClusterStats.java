package dev.warden.bench;

import dev.warden.testkit.RedisServer;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Redis Cluster has done: one {@link RedisStats} per node, the nodes and their roles read
 * from a seed's {@code CLUSTER NODES} when connecting (a benchmark's cluster does not fail over). A
 * snapshot adds up the masters' command calls, CPU time and reads, which compare with one server's,
 * and every node's CPU time, replicas included, on its own.
 */
final class ClusterStats implements Stats {
  private final List<RedisStats> masters;
  private final List<RedisStats> replicas;

  private ClusterStats(List<RedisStats> masters, List<RedisStats> replicas) {
    this.masters = masters;
    this.replicas = replicas;
  }

  /**
   * Connects to every node of the cluster that {@code seedUri} belongs to.
   *
   * @throws IllegalStateException if the seed knows no master
   */
  static ClusterStats connect(String seedUri) {
    List<RedisStats> masters = new ArrayList<>();
    List<RedisStats> replicas = new ArrayList<>();
    RedisURI seed = RedisURI.create(seedUri);
    try (RedisStats first = RedisStats.connect(seedUri)) {
      for (String line : first.commands().clusterNodes().split("\n", -1)) {
        String[] fields = line.strip().split(" ", -1);
        if (fields.length < 3 || fields[2].contains("fail") || fields[2].contains("noaddr")) {
          continue;
        }
        String address = fields[1].split("@", 2)[0];
        int colon = address.lastIndexOf(':');
        String host = colon > 0 ? address.substring(0, colon) : seed.getHost();
        RedisURI node = RedisURI.create(seedUri);
        node.setHost(host.isEmpty() ? seed.getHost() : host);
        node.setPort(Integer.parseInt(address.substring(colon + 1)));
        (fields[2].contains("master") ? masters : replicas)
            .add(RedisStats.connect(node.toURI().toString()));
      }
    } catch (RuntimeException e) {
      masters.forEach(RedisStats::close);
      replicas.forEach(RedisStats::close);
      throw e;
    }
    if (masters.isEmpty()) {
      replicas.forEach(RedisStats::close);
      throw new IllegalStateException("the cluster of " + seedUri + " has no master");
    }
    return new ClusterStats(masters, replicas);
  }

  /** Connects to the nodes of a throwaway cluster directly, whatever address they announce. */
  static ClusterStats of(List<RedisServer> masters, List<RedisServer> replicas) {
    List<RedisStats> masterStats = new ArrayList<>();
    List<RedisStats> replicaStats = new ArrayList<>();
    try {
      masters.forEach(node -> masterStats.add(RedisStats.connect(node.uri())));
      replicas.forEach(node -> replicaStats.add(RedisStats.connect(node.uri())));
    } catch (RuntimeException e) {
      masterStats.forEach(RedisStats::close);
      replicaStats.forEach(RedisStats::close);
      throw e;
    }
    return new ClusterStats(masterStats, replicaStats);
  }

  /** Returns the first master's statistics connection, e.g. for its server version. */
  RedisStats first() {
    return masters.get(0);
  }

  /** Returns how many masters and replicas the cluster has, e.g. "3 masters + 3 replicas". */
  String shape() {
    return masters.size() + " masters + " + replicas.size() + " replicas";
  }

  @Override
  public RedisStats.Snapshot snapshot(boolean opening) {
    RedisStats.Snapshot sum = null;
    for (RedisStats master : masters) {
      RedisStats.Snapshot one = master.snapshot(opening);
      sum = sum == null ? one : sum.plus(one, /* otherIsMaster= */ true);
    }
    for (RedisStats replica : replicas) {
      sum = sum.plus(replica.snapshot(opening), /* otherIsMaster= */ false);
    }
    return sum;
  }

  @Override
  public void close() {
    masters.forEach(RedisStats::close);
    replicas.forEach(RedisStats::close);
  }
}
