package dev.warden.cli;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;

/**
 * The demo's two plain Redis keys, outside any Warden primitive: a counter that is incremented
 * unsafely on purpose, and the list of fencing tokens in the order the critical sections ran.
 *
 * <p>This is the only class of the CLI that talks to Redis without Warden. Thread-safe: one Lettuce
 * connection, each call one round trip (LRANGE of the whole list included). A call fails with a
 * Lettuce {@code RedisException} after {@link #COMMAND_TIMEOUT}, or at once while disconnected: the
 * demo reports a Redis that went away instead of waiting for it.
 */
final class DemoKeys implements AutoCloseable {
  static final String COUNTER = "demo:counter";
  static final String TOKENS = "demo:tokens";
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  private DemoKeys(RedisClient client) {
    this.client = client;
    try {
      this.connection = client.connect();
    } catch (RuntimeException unreachable) {
      client.shutdown();
      throw unreachable;
    }
    this.redis = connection.sync();
  }

  /** Connects to the Redis at {@code uri} (Lettuce syntax). */
  static DemoKeys connect(String uri) {
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(COMMAND_TIMEOUT);
    RedisClient client = RedisClient.create(redisUri);
    client.setOptions(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    return new DemoKeys(client);
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
    connection.close();
    client.shutdown();
  }
}
