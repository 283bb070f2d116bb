package dev.warden.testkit;

import dev.warden.Warden;
import java.util.List;
import java.util.Objects;

/**
 * A throwaway Redis deployment of a {@linkplain WardenDeployment.Kind kind}, started on free ports
 * of 127.0.0.1 and stopped by {@link #close()}: what {@link WardenExtension} runs a test class on,
 * and what a tool that needs a Redis for a while (a demo, a chaos run) starts, without choosing the
 * class of each kind itself.
 *
 * <pre>{@code
 * try (RedisDeployment redis = RedisDeployment.start(WardenDeployment.Kind.SENTINEL);
 *     Warden warden = redis.configure(Warden.builder()).build()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Its parts stay reachable by their own classes ({@link #server()}, {@link #cluster()}, {@link
 * #sentinels()}) for faults. Thread-safe as its parts are: {@link #close()} may be called from a
 * shutdown hook.
 *
 * @since 0.2
 */
public final class RedisDeployment implements AutoCloseable {
  private final WardenDeployment.Kind kind;
  private final Topology topology;

  private RedisDeployment(WardenDeployment.Kind kind, Topology topology) {
    this.kind = kind;
    this.topology = topology;
  }

  /**
   * Starts a deployment of {@code kind}: one {@link RedisServer} ({@code SINGLE}, and {@code
   * SINGLE_ACL} with its {@linkplain WardenAcl ACL user}), a 3+3 {@link RedisCluster}, or a {@link
   * RedisSentinels} set; returns once it serves.
   *
   * @param kind the kind
   * @return the running deployment
   * @throws NullPointerException if {@code kind} is null
   * @throws IllegalStateException if a server does not start (the message quotes its log)
   */
  public static RedisDeployment start(WardenDeployment.Kind kind) {
    Objects.requireNonNull(kind, "kind must not be null");
    switch (kind) {
      case CLUSTER:
        return new RedisDeployment(kind, cluster(RedisCluster.start()));
      case SENTINEL:
        return new RedisDeployment(kind, sentinels(RedisSentinels.start()));
      case SINGLE_ACL:
        return new RedisDeployment(kind, singleAcl(RedisServer.start()));
      case SINGLE:
      default:
        return new RedisDeployment(kind, single(RedisServer.start()));
    }
  }

  /**
   * Starts a deployment of {@code kind} whose nodes clients, replicas, sentinels and the cluster
   * bus reach only through {@link FaultProxy} proxies, so that a node can be cut off from everybody
   * ({@link RedisCluster#startBehindProxies()}, {@link RedisSentinels#startBehindProxies()}). One
   * server ({@code SINGLE}) starts without one: a proxy per client is the caller's ({@link
   * FaultProxy#start(RedisServer)}).
   *
   * @param kind {@code SINGLE}, {@code CLUSTER} or {@code SENTINEL}
   * @return the running deployment
   * @throws IllegalArgumentException if {@code kind} is {@code SINGLE_ACL} or null
   * @throws IllegalStateException if a server does not start (the message quotes its log)
   */
  public static RedisDeployment startBehindProxies(WardenDeployment.Kind kind) {
    if (kind == null || kind == WardenDeployment.Kind.SINGLE_ACL) {
      throw new IllegalArgumentException(
          "kind must be SINGLE, CLUSTER or SENTINEL behind proxies: " + kind);
    }
    switch (kind) {
      case CLUSTER:
        return new RedisDeployment(kind, cluster(RedisCluster.startBehindProxies()));
      case SENTINEL:
        return new RedisDeployment(kind, sentinels(RedisSentinels.startBehindProxies()));
      case SINGLE:
      default:
        return new RedisDeployment(kind, single(RedisServer.start()));
    }
  }

  /**
   * Returns the kind it was started as.
   *
   * @return the kind
   */
  public WardenDeployment.Kind kind() {
    return kind;
  }

  /**
   * Returns the one server of a {@code SINGLE} or {@code SINGLE_ACL} deployment.
   *
   * @return the server
   * @throws IllegalStateException if the deployment is a cluster or a Sentinel set
   */
  public RedisServer server() {
    return part(RedisServer.class);
  }

  /**
   * Returns the cluster of a {@code CLUSTER} deployment.
   *
   * @return the cluster
   * @throws IllegalStateException if the deployment is not a cluster
   */
  public RedisCluster cluster() {
    return part(RedisCluster.class);
  }

  /**
   * Returns the Sentinel set of a {@code SENTINEL} deployment.
   *
   * @return the Sentinel set
   * @throws IllegalStateException if the deployment is not a Sentinel set
   */
  public RedisSentinels sentinels() {
    return part(RedisSentinels.class);
  }

  /**
   * Returns the URIs a {@link Warden} connects with: the server's ({@code redis://}, as the ACL
   * user on {@code SINGLE_ACL}), the set's {@code redis-sentinel://} URI, or a cluster's seeds (its
   * current masters), for {@link Warden.Builder#cluster(String...)}.
   *
   * @return one URI, or a cluster's seeds
   */
  public List<String> uris() {
    return topology.uris();
  }

  /**
   * Points {@code builder} at the deployment ({@link Warden.Builder#uri(String)} or {@link
   * Warden.Builder#cluster(String...)}) and returns it.
   *
   * @param builder the builder
   * @return {@code builder}
   */
  public Warden.Builder configure(Warden.Builder builder) {
    if (kind == WardenDeployment.Kind.CLUSTER) {
      builder.cluster(uris().toArray(String[]::new));
    } else {
      builder.uri(uris().get(0));
    }
    return builder;
  }

  /**
   * Returns the servers that take writes now: the one server, the Sentinel set's master, or the
   * cluster's masters.
   *
   * @return the masters
   */
  public List<RedisServer> masters() {
    return topology.masters();
  }

  /** Deletes every key, on every master. */
  public void flushAll() {
    masters().forEach(RedisServer::flushAll);
  }

  /** Stops every process and deletes their files. Idempotent. */
  @Override
  public void close() {
    topology.close();
  }

  /** Returns the kind and its part, for messages. */
  @Override
  public String toString() {
    return "RedisDeployment[" + kind + ", " + topology.resource() + "]";
  }

  /** Gives the next test a clean deployment: ends faults it can end, flushes, resets statistics. */
  void reset() {
    topology.reset();
  }

  /** The object a test method may take: the {@link RedisServer}, cluster or sentinel set. */
  Object resource() {
    return topology.resource();
  }

  private <T> T part(Class<T> type) {
    Object resource = topology.resource();
    if (!type.isInstance(resource)) {
      throw new IllegalStateException(
          "a " + kind + " deployment has no " + type.getSimpleName() + ": " + this);
    }
    return type.cast(resource);
  }

  /** What differs between the kinds. */
  private interface Topology {
    List<String> uris();

    List<RedisServer> masters();

    void reset();

    Object resource();

    void close();
  }

  /** One server. */
  private static Topology single(RedisServer server) {
    return new Topology() {
      @Override
      public List<String> uris() {
        return List.of(server.uri());
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
  private static Topology singleAcl(RedisServer server) {
    Topology plain = single(server);
    WardenAcl.createUser(server, WardenAcl.USER, WardenAcl.PASSWORD, WardenAcl.SINGLE_SERVER);
    return new Topology() {
      @Override
      public List<String> uris() {
        return List.of(WardenAcl.uriOf(server));
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
  private static Topology cluster(RedisCluster cluster) {
    return new Topology() {
      @Override
      public List<String> uris() {
        return cluster.seeds();
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
  private static Topology sentinels(RedisSentinels sentinels) {
    return new Topology() {
      @Override
      public List<String> uris() {
        return List.of(sentinels.uri());
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
