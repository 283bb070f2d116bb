package dev.warden.cli;

import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisDeployment;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import java.time.Duration;

/**
 * A Redis deployment the demo starts for itself and stops at the end: one redis-server, a 3+3 Redis
 * Cluster, or a Sentinel set (a master, 2 replicas, 3 sentinels), all on free ports of 127.0.0.1.
 * It can fail over the master that serves a key, mid-run. Not thread-safe beyond {@link #close},
 * which the demo's shutdown hook may call at any time.
 */
abstract class Throwaway implements AutoCloseable {
  /** The processes, started by the testkit. */
  final RedisDeployment deployment;

  Throwaway(RedisDeployment deployment) {
    this.deployment = deployment;
  }

  /** Starts the kind the options ask for. */
  static Throwaway start(boolean cluster, boolean sentinel) {
    if (cluster) {
      return new Cluster(RedisDeployment.start(WardenDeployment.Kind.CLUSTER));
    }
    if (sentinel) {
      return new Sentinels(RedisDeployment.start(WardenDeployment.Kind.SENTINEL));
    }
    return new Single(RedisDeployment.start(WardenDeployment.Kind.SINGLE));
  }

  /** Where the demo's clients connect. */
  final Target target() {
    return Target.of(deployment);
  }

  /**
   * Where the protected resource (the counter and the token list) lives: the same server, or for a
   * deployment that fails over, a separate redis-server, as a database would be: a failover of the
   * lock's Redis loses acknowledged writes of that Redis, and the demo judges the lock, not the
   * durability of its own counter.
   */
  abstract Target store();

  /** Describes it, e.g. {@code throwaway 3+3 Redis Cluster}. */
  abstract String describe();

  /**
   * Fails over the master that serves {@code key} and returns what happened, for the output.
   *
   * @throws UnsupportedOperationException on one server, which has no replica
   */
  abstract String failover(String key);

  /** Stops the deployment, and the store if it has one of its own. */
  @Override
  public abstract void close();

  /** Starts the separate store; if it cannot start, stops the deployment started before it. */
  private static RedisServer startStore(Runnable stopDeployment) {
    try {
      return RedisServer.start();
    } catch (RuntimeException e) {
      stopDeployment.run();
      throw e;
    }
  }

  private static final class Single extends Throwaway {
    Single(RedisDeployment deployment) {
      super(deployment);
    }

    @Override
    Target store() {
      return target();
    }

    @Override
    String describe() {
      return "throwaway redis-server";
    }

    @Override
    String failover(String key) {
      throw new UnsupportedOperationException("one redis-server has no replica to fail over to");
    }

    @Override
    public void close() {
      deployment.close();
    }
  }

  private static final class Cluster extends Throwaway {
    private final RedisCluster cluster;
    private final RedisServer store;

    Cluster(RedisDeployment deployment) {
      super(deployment);
      this.cluster = deployment.cluster();
      this.store = startStore(deployment::close);
    }

    @Override
    Target store() {
      return new Target(store.uri(), false);
    }

    @Override
    String describe() {
      return "throwaway 3+3 Redis Cluster";
    }

    @Override
    String failover(String key) {
      RedisServer master = cluster.masterOf(key);
      RedisServer replica = cluster.replicaOf(master);
      long begin = System.nanoTime();
      cluster.failover(replica, RedisCluster.Mode.GRACEFUL);
      return "CLUSTER FAILOVER of the shard serving "
          + key
          + ": master port "
          + master.port()
          + " -> "
          + replica.port()
          + ", done in "
          + Text.millis(Duration.ofNanos(System.nanoTime() - begin).toMillis());
    }

    @Override
    public void close() {
      store.close();
      deployment.close();
    }
  }

  private static final class Sentinels extends Throwaway {
    private final RedisSentinels sentinels;
    private final RedisServer store;

    Sentinels(RedisDeployment deployment) {
      super(deployment);
      this.sentinels = deployment.sentinels();
      this.store = startStore(deployment::close);
    }

    @Override
    Target store() {
      return new Target(store.uri(), false);
    }

    @Override
    String describe() {
      return "throwaway Sentinel set (a master, 2 replicas, 3 sentinels)";
    }

    @Override
    String failover(String key) {
      RedisServer old = sentinels.master();
      long begin = System.nanoTime();
      RedisServer promoted = sentinels.failoverWithoutLoss();
      return "SENTINEL FAILOVER once the replicas had every write (writes paused meanwhile): master"
          + " port "
          + old.port()
          + " -> "
          + promoted.port()
          + ", named by every sentinel after "
          + Text.millis(Duration.ofNanos(System.nanoTime() - begin).toMillis());
    }

    @Override
    public void close() {
      store.close();
      deployment.close();
    }
  }
}
