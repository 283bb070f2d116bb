package dev.warden.testkit;

import dev.warden.Warden;
import java.util.List;

/**
 * The deployment a test class runs on, as {@link WardenExtension} and {@link WardenFactory} use it:
 * how a {@link Warden} reaches it, how a test gets a clean one, and the object a test may take as a
 * parameter. Package-private: tests see the deployment's own class.
 */
interface Target {
  /** Points a builder at the deployment. */
  void configure(Warden.Builder builder);

  /** Deletes every key, on every master. */
  void flushAll();

  /** The servers that take writes now: the one server, the Sentinel set's master, the masters. */
  List<RedisServer> masters();

  /** Gives the next test a clean deployment: ends faults it can end, flushes, resets statistics. */
  void reset();

  /** The object a test method may take: the {@link RedisServer}, cluster or sentinel set. */
  Object resource();

  /** Stops every process. */
  void close();

  /** Starts a deployment of a kind. */
  static Target start(WardenDeployment.Kind kind) {
    switch (kind) {
      case CLUSTER:
        return cluster(RedisCluster.start());
      case SENTINEL:
        return sentinels(RedisSentinels.start());
      case SINGLE_ACL:
        return singleAcl(RedisServer.start());
      case SINGLE:
      default:
        return single(RedisServer.start());
    }
  }

  /** One server. */
  static Target single(RedisServer server) {
    return new Target() {
      @Override
      public void configure(Warden.Builder builder) {
        builder.uri(server.uri());
      }

      @Override
      public void flushAll() {
        server.flushAll();
      }

      @Override
      public List<RedisServer> masters() {
        return List.of(server);
      }

      @Override
      public void reset() {
        server.resume();
        if (!server.isRunning()) {
          server.restart();
        }
        server.flushAll();
        server.redis().configResetstat();
      }

      @Override
      public Object resource() {
        return server;
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }

  /**
   * One server reached as a user with exactly {@link WardenAcl#SINGLE_SERVER}; the test's own
   * connection ({@link RedisServer#redis()}) stays the default user.
   */
  static Target singleAcl(RedisServer server) {
    Target plain = single(server);
    WardenAcl.createUser(server, WardenAcl.USER, WardenAcl.PASSWORD, WardenAcl.SINGLE_SERVER);
    return new Target() {
      @Override
      public void configure(Warden.Builder builder) {
        builder.uri(WardenAcl.uriOf(server));
      }

      @Override
      public void flushAll() {
        plain.flushAll();
      }

      @Override
      public List<RedisServer> masters() {
        return plain.masters();
      }

      @Override
      public void reset() {
        plain.reset();
        // a restart forgets users; the ACL log must show only the next test's refusals
        WardenAcl.createUser(server, WardenAcl.USER, WardenAcl.PASSWORD, WardenAcl.SINGLE_SERVER);
        server.redis().aclLogReset();
      }

      @Override
      public Object resource() {
        return server;
      }

      @Override
      public void close() {
        plain.close();
      }
    };
  }

  /** A cluster, reached through its current masters. */
  static Target cluster(RedisCluster cluster) {
    return new Target() {
      @Override
      public void configure(Warden.Builder builder) {
        builder.cluster(cluster.seeds().toArray(String[]::new));
      }

      @Override
      public void flushAll() {
        cluster.masters().forEach(RedisServer::flushAll);
      }

      @Override
      public List<RedisServer> masters() {
        return cluster.masters();
      }

      @Override
      public void reset() {
        cluster.awaitHealthy();
        List<RedisServer> masters = cluster.masters();
        for (RedisServer master : masters) {
          master.flushAll();
          master.redis().configResetstat();
        }
      }

      @Override
      public Object resource() {
        return cluster;
      }

      @Override
      public void close() {
        cluster.close();
      }
    };
  }

  /** A Sentinel set, reached by its {@code redis-sentinel://} URI. */
  static Target sentinels(RedisSentinels sentinels) {
    return new Target() {
      @Override
      public void configure(Warden.Builder builder) {
        builder.uri(sentinels.uri());
      }

      @Override
      public void flushAll() {
        sentinels.master().flushAll();
      }

      @Override
      public List<RedisServer> masters() {
        return List.of(sentinels.master());
      }

      @Override
      public void reset() {
        RedisServer master = sentinels.master();
        master.flushAll();
        master.redis().configResetstat();
      }

      @Override
      public Object resource() {
        return sentinels;
      }

      @Override
      public void close() {
        sentinels.close();
      }
    };
  }
}
