package dev.warden.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/** Starts the redis-server processes of a {@link RedisCluster}, in parallel, before it forms. */
final class ClusterStart {
  /** Tries at a node whose cluster bus port was taken before it could bind it. */
  private static final int BUS_PORT_ATTEMPTS = 5;

  private ClusterStart() {}

  /**
   * Starts {@code count} cluster-enabled nodes at once; if any fails, stops the others and throws
   * the first failure with the rest suppressed.
   */
  static List<RedisServer> nodes(int count, Duration nodeTimeout) {
    return nodes(count, nodeTimeout, RedisServer::start);
  }

  /**
   * The same, each node started by {@code start} from its cluster arguments (e.g. with TLS as
   * well).
   */
  static List<RedisServer> nodes(
      int count, Duration nodeTimeout, Function<String[], RedisServer> start) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            count,
            task -> {
              Thread thread = new Thread(task, "warden-testkit-cluster-start");
              thread.setDaemon(true);
              return thread;
            });
    List<Future<RedisServer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        futures.add(pool.submit(() -> node(nodeTimeout, start)));
      }
      List<RedisServer> started = new ArrayList<>();
      RuntimeException failure = null;
      for (Future<RedisServer> future : futures) {
        try {
          started.add(future.get());
        } catch (ExecutionException e) {
          RuntimeException cause =
              e.getCause() instanceof RuntimeException
                  ? (RuntimeException) e.getCause()
                  : new IllegalStateException("cannot start a cluster node", e.getCause());
          if (failure == null) {
            failure = cause;
          } else {
            failure.addSuppressed(cause);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          if (failure == null) {
            failure = new IllegalStateException("interrupted while starting the cluster", e);
          }
        }
      }
      if (failure != null) {
        for (RedisServer node : started) {
          try {
            node.close();
          } catch (RuntimeException e) {
            failure.addSuppressed(e);
          }
        }
        throw failure;
      }
      return started;
    } finally {
      pool.shutdown();
    }
  }

  private static RedisServer node(Duration nodeTimeout, Function<String[], RedisServer> start) {
    for (int attempt = 1; ; attempt++) {
      // Redis binds the bus port too; if someone takes it first, the node cannot start.
      int busPort = RedisServer.freePort();
      try {
        return start.apply(
            new String[] {
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              "nodes.conf",
              "--cluster-node-timeout",
              Long.toString(nodeTimeout.toMillis()),
              "--cluster-port",
              Integer.toString(busPort),
              "--repl-diskless-sync-delay",
              "0"
            });
      } catch (IllegalStateException e) {
        if (attempt == BUS_PORT_ATTEMPTS
            || !String.valueOf(e.getMessage()).contains("no free port")) {
          throw e;
        }
      }
    }
  }
}
