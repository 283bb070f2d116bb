package dev.warden.internal.redis.sentinel;

import dev.warden.internal.redis.ClientSetup;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The connections to one Sentinel-managed master: a command connection and a pub/sub connection,
 * both named after the client and both reconnecting to the same address by themselves. {@link
 * SentinelDeployment} replaces the whole link when the sentinels name another master.
 *
 * <p>Thread-safety: immutable once opened; the connections are thread-safe.
 */
final class MasterLink {
  final String host;
  final int port;
  final StatefulRedisConnection<String, String> connection;
  final RedisAsyncCommands<String, String> commands;
  final StatefulRedisPubSubConnection<String, String> pubSub;

  private MasterLink(
      String host,
      int port,
      StatefulRedisConnection<String, String> connection,
      StatefulRedisPubSubConnection<String, String> pubSub) {
    this.host = host;
    this.port = port;
    this.connection = connection;
    this.commands = connection.async();
    this.pubSub = pubSub;
  }

  /**
   * Connects to the master at {@code host:port} with the credentials, TLS settings, database and
   * timeout of {@code template}, checks that it answers {@code ROLE} as a master unless {@code
   * requireMaster} is false (a replica about to be promoted), and adds {@code listener} to the
   * pub/sub connection. Blocks for up to a few command timeouts.
   *
   * @throws RedisException if a connection fails, or the node is not a master as required (a
   *     failover is under way or the sentinels' answer is stale): nothing stays open then
   */
  static MasterLink open(
      RedisClient client,
      RedisURI template,
      String host,
      int port,
      String clientName,
      RedisPubSubListener<String, String> listener,
      boolean requireMaster) {
    StatefulRedisConnection<String, String> connection = null;
    StatefulRedisPubSubConnection<String, String> pubSub = null;
    try {
      connection = client.connect(StringCodec.UTF8, address(template, host, port, clientName));
      List<Object> role = connection.sync().role();
      if (requireMaster && (role.isEmpty() || !"master".equals(String.valueOf(role.get(0))))) {
        throw new RedisException(
            host
                + ":"
                + port
                + " is not a master (ROLE "
                + (role.isEmpty() ? "?" : role.get(0))
                + ")");
      }
      pubSub =
          client.connectPubSub(
              StringCodec.UTF8, address(template, host, port, clientName + "-pubsub"));
      pubSub.addListener(listener);
      return new MasterLink(host, port, connection, pubSub);
    } catch (RuntimeException e) {
      if (pubSub != null) {
        pubSub.close();
      }
      if (connection != null) {
        connection.close();
      }
      throw e;
    }
  }

  /** Whether the node answers {@code ROLE} as a master now; blocks for up to the timeout. */
  boolean isMaster() {
    List<Object> role = connection.sync().role();
    return !role.isEmpty() && "master".equals(String.valueOf(role.get(0)));
  }

  /** Whether this link leads to {@code host:port}. */
  boolean isAt(String otherHost, int otherPort) {
    return host.equals(otherHost) && port == otherPort;
  }

  /**
   * Closes both connections; completes when they are closed, by which time every command still
   * pending on them has completed (most with a "connection closed" failure, which callers retry).
   */
  CompletableFuture<Void> closeAsync() {
    return CompletableFuture.allOf(connection.closeAsync(), pubSub.closeAsync());
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }

  /**
   * A data-node URI for {@code host:port} that keeps what the user's sentinel URI says about the
   * data nodes: credentials (Lettuce applies a sentinel URI's password to the data nodes only),
   * TLS, database and timeout.
   */
  static RedisURI address(RedisURI template, String host, int port, String clientName) {
    return ClientSetup.withoutLibraryInfo(
        RedisURI.builder()
            .withHost(host)
            .withPort(port)
            .withAuthentication(template)
            .withSsl(template)
            .withDatabase(template.getDatabase())
            .withTimeout(template.getTimeout())
            .withClientName(clientName)
            .build());
  }
}
