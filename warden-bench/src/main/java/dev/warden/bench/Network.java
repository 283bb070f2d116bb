package dev.warden.bench;

import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.List;

/**
 * The path between the clients and the throwaway servers: direct (loopback), or with a round trip
 * added, through a network namespace ({@link Namespace}: the clients run inside it, Redis is
 * reached over a veth pair delayed by {@code tc netem}) or through delaying proxies in a JVM of
 * their own ({@link DelayProxies}: {@code FaultProxy.delay}). It tells the servers to take the
 * clients' connections (and a cluster to announce that address) and returns the URIs the clients
 * use; the benchmark's own statistics connections stay on loopback. Closing undoes it all.
 */
interface Network extends AutoCloseable {

  /** The direct path: clients use the servers' own URIs. */
  Network DIRECT =
      new Network() {
        @Override
        public String description() {
          return "direct (loopback), no round trip added";
        }

        @Override
        public Duration roundTrip() {
          return Duration.ZERO;
        }

        @Override
        public String clientUri(RedisServer server) {
          return server.uri();
        }

        @Override
        public RedisCluster startCluster() {
          return RedisCluster.start();
        }

        @Override
        public List<String> clientSeeds(RedisCluster cluster) {
          return cluster.masters().stream().map(RedisServer::uri).toList();
        }

        @Override
        public void close() {}
      };

  /**
   * Returns the path a parent JVM made for this one (which runs inside it): direct from here, as
   * {@code description} says.
   */
  static Network inherited(String description, Duration roundTrip) {
    return new Network() {
      @Override
      public String description() {
        return description;
      }

      @Override
      public Duration roundTrip() {
        return roundTrip;
      }

      @Override
      public String clientUri(RedisServer server) {
        return server.uri();
      }

      @Override
      public RedisCluster startCluster() {
        throw new IllegalStateException(
            "the servers are on the other side of the path: the parent could not start a cluster");
      }

      @Override
      public List<String> clientSeeds(RedisCluster cluster) {
        return DIRECT.clientSeeds(cluster);
      }

      @Override
      public void close() {}
    };
  }

  /** Returns what the path is, for the report: e.g. "network namespace ..., netem 250 us". */
  String description();

  /** Returns the round trip added between clients and Redis. */
  Duration roundTrip();

  /** Makes {@code server} reachable on this path; returns the URI clients use. */
  String clientUri(RedisServer server);

  /** Starts a throwaway 3+3 Redis Cluster whose nodes can be reached on this path. */
  RedisCluster startCluster();

  /** Makes every node of {@code cluster} reachable on this path; returns the seeds clients use. */
  List<String> clientSeeds(RedisCluster cluster);

  @Override
  void close();
}
