package dev.warden.bench;

import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis deployments a run measures on: one server, always (a throwaway {@code redis-server}
 * unless {@code --uri} names one), and a Redis Cluster for W10 (a throwaway 3+3 {@link
 * RedisCluster} started the first time a point asks for it, unless {@code --cluster-uri} names
 * one). Each comes as a {@link Target}: the URI the clients connect to, on the run's {@link
 * Network} path (a round trip added or not), and the statistics of its work, read directly. Closing
 * stops what was started. Used by the runner's thread only.
 */
final class Servers implements AutoCloseable {

  /**
   * One deployment as the benchmark sees it.
   *
   * @param uri what clients connect to (a cluster: {@link Library#clusterUri})
   * @param stats its statistics, through a connection of the benchmark's own
   * @param description what it is, for the report
   */
  record Target(String uri, Stats stats, String description) {}

  private final Settings settings;
  private final Network network;
  private final List<AutoCloseable> started = new ArrayList<>();
  private final Target single;
  private final RedisStats singleStats;
  private Target cluster;
  private RuntimeException clusterFailure;

  private Servers(Settings settings, Network network, Target single, RedisStats singleStats) {
    this.settings = settings;
    this.network = network;
    this.single = single;
    this.singleStats = singleStats;
  }

  /** Starts (or connects to) the one server; its clients take {@code network}'s path. */
  static Servers start(Settings settings, Network network) {
    RedisServer server = null;
    String statsUri;
    if (settings.uri().isPresent()) {
      statsUri = settings.uri().get();
    } else {
      server = RedisServer.start();
      statsUri = server.uri();
    }
    try {
      String uri = server == null ? statsUri : network.clientUri(server);
      RedisStats stats = RedisStats.connect(statsUri);
      Servers servers =
          new Servers(
              settings,
              network,
              new Target(uri, stats, server != null ? "throwaway redis-server (testkit)" : uri),
              stats);
      if (server != null) {
        servers.started.add(server);
      }
      servers.started.add(stats);
      return servers;
    } catch (RuntimeException e) {
      if (server != null) {
        server.close();
      }
      throw e;
    }
  }

  /** Returns the path between the clients and the servers. */
  Network network() {
    return network;
  }

  /** Returns the one server. */
  Target single() {
    return single;
  }

  /** Returns the one server's own statistics connection (its version, script loading). */
  RedisStats singleStats() {
    return singleStats;
  }

  /** Returns the target of a point: the cluster for W10's, else the one server. */
  Target of(Point point) {
    return point.onCluster() ? cluster() : single;
  }

  /**
   * Returns the Redis Cluster, started (or connected to) the first time.
   *
   * @throws BenchException if it cannot be started or reached (again on every later call)
   */
  Target cluster() {
    if (cluster != null) {
      return cluster;
    }
    if (clusterFailure != null) {
      throw new BenchException("no Redis Cluster: " + clusterFailure.getMessage(), clusterFailure);
    }
    try {
      List<String> seeds;
      String description;
      ClusterStats stats;
      if (settings.clusterUri().isPresent()) {
        seeds = List.of(settings.clusterUri().get().split(",", -1));
        description = "Redis Cluster at " + settings.clusterUri().get();
        stats = ClusterStats.connect(seeds.get(0));
      } else {
        RedisCluster started = network.startCluster();
        this.started.add(started);
        List<RedisServer> masters = started.masters();
        List<RedisServer> replicas = new ArrayList<>(started.nodes());
        replicas.removeAll(masters);
        seeds = network.clientSeeds(started);
        description = "throwaway Redis Cluster (testkit)";
        stats = ClusterStats.of(masters, replicas);
      }
      this.started.add(stats);
      cluster = new Target(Library.clusterUri(seeds), stats, description + ", " + stats.shape());
      return cluster;
    } catch (RuntimeException e) {
      clusterFailure = e;
      throw new BenchException("no Redis Cluster: " + e.getMessage(), e);
    }
  }

  /** Returns what the cluster was, or "not used" if no point asked for it. */
  String clusterDescription() {
    return cluster != null
        ? cluster.description()
        : clusterFailure != null ? "failed: " + clusterFailure.getMessage() : "not used";
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("cannot stop " + started.get(i), e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
