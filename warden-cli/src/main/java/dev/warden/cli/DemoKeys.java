package dev.warden.cli;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The demo's two plain Redis keys, outside any Warden primitive: a counter that is incremented
 * unsafely on purpose, and the list of fencing tokens in the order the critical sections ran.
 *
 * <p>This is the only class of the CLI that talks to Redis without Warden. Thread-safe: one Lettuce
 * connection (a cluster connection on a cluster), each call one round trip (LRANGE of the whole
 * list included). A call fails with a Lettuce {@code RedisException} after {@link
 * #COMMAND_TIMEOUT}, or at once while disconnected: the demo reports a Redis that went away instead
 * of waiting for it.
 */
final class DemoKeys implements AutoCloseable {
  static final String COUNTER = "demo:counter";
  static final String TOKENS = "demo:tokens";
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  private final Runnable closer;
  private final RedisClusterCommands<String, String> redis;

  private DemoKeys(RedisClusterCommands<String, String> redis, Runnable closer) {
    this.redis = redis;
    this.closer = closer;
  }

  /**
   * Connects to {@code target}: one server; a Sentinel set through Lettuce's master-replica client,
   * which follows a failover; or a cluster, whose topology it refreshes every second.
   */
  static DemoKeys connect(Target target) {
    if (target.cluster()) {
      List<RedisURI> seeds = new ArrayList<>();
      for (String seed : target.seeds()) {
        RedisURI uri = RedisURI.create(seed);
        uri.setTimeout(COMMAND_TIMEOUT);
        seeds.add(uri);
      }
      RedisClusterClient client = RedisClusterClient.create(seeds);
      client.setOptions(
          ClusterClientOptions.builder()
              .topologyRefreshOptions(
                  ClusterTopologyRefreshOptions.builder()
                      .enablePeriodicRefresh(Duration.ofSeconds(1))
                      .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                      .build())
              .build());
      return open(client, client::connect, StatefulRedisClusterConnection::sync);
    }
    RedisURI uri = RedisURI.create(target.uri());
    uri.setTimeout(COMMAND_TIMEOUT);
    RedisClient client = RedisClient.create();
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    return open(
        client,
        () ->
            uri.getSentinels().isEmpty()
                ? client.connect(uri)
                : MasterReplica.connect(client, StringCodec.UTF8, uri),
        StatefulRedisConnection::sync);
  }

  /** Opens {@code client}'s connection; shuts the client down if it cannot. */
  private static <C extends StatefulConnection<String, String>> DemoKeys open(
      AbstractRedisClient client,
      Supplier<C> connect,
      Function<C, RedisClusterCommands<String, String>> commands) {
    C connection;
    try {
      connection = connect.get();
    } catch (RuntimeException unreachable) {
      client.shutdown();
      throw unreachable;
    }
    return new DemoKeys(
        commands.apply(connection),
        () -> {
          connection.close();
          client.shutdown();
        });
  }

  /** Deletes the counter and the token list. */
  void reset() {
    redis.del(COUNTER, TOKENS);
  }

  /**
   * Adds one to the counter with a separate read and write, not INCR: two callers that overlap both
   * write the same value and one increment is lost. Only a lock around it keeps the count.
   */
  void incrementUnsafely() {
    String current = redis.get(COUNTER);
    long value = current == null ? 0 : Long.parseLong(current);
    redis.set(COUNTER, Long.toString(value + 1));
  }

  /** Appends {@code token} to the token list. */
  void recordToken(long token) {
    redis.rpush(TOKENS, Long.toString(token));
  }

  /** Returns the counter; 0 if it does not exist. */
  long counter() {
    String value = redis.get(COUNTER);
    return value == null ? 0 : Long.parseLong(value);
  }

  /** Returns the recorded tokens, oldest first. */
  long[] tokens() {
    List<String> tokens = redis.lrange(TOKENS, 0, -1);
    return tokens.stream().mapToLong(Long::parseLong).toArray();
  }

  @Override
  public void close() {
    closer.run();
  }
}
