package dev.warden.internal.redis;

import dev.warden.WardenException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One Redis server (or whatever one Lettuce URI reaches): a command connection and a pub/sub
 * connection, both reconnecting by themselves.
 */
public final class SingleServer implements Deployment {
  private final String address;
  private final ClientResources resources;
  private final ClientSetup setup;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> commands;
  private final ServerPubSub pubSub;
  private final ReplicaWaits replicaWaits;

  private SingleServer(RedisURI uri, ClientSetup setup) {
    this.address = ClientSetup.describe(uri);
    this.setup = setup;
    this.resources = setup.resources();
    this.client = RedisClient.create(resources, uri);
    client.setOptions(setup.options(ClientOptions.builder()).build());
    String target = "Redis at " + address;
    String name = setup.clientName();
    this.connection =
        ClientSetup.connect(target, () -> named(client.connect(), name), this::shutdown);
    this.commands = connection.async();
    this.pubSub =
        new ServerPubSub(
            ClientSetup.connect(
                target, () -> named(client.connectPubSub(), name + "-pubsub"), this::shutdown));
    String self = uri.getHost() + ":" + uri.getPort();
    this.replicaWaits =
        new ReplicaWaits(
            key -> self,
            address -> client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture());
  }

  private static <C extends StatefulRedisConnection<String, String>> C named(
      C connection, String name) {
    connection.sync().clientSetname(name);
    return connection;
  }

  @Override
  public ReplicaWaits replicaWaits() {
    return replicaWaits;
  }

  /**
   * Connects to the server at {@code uri}, naming both connections after the set-up's client name,
   * with TLS if the URI says {@code rediss://} or the set-up has TLS options.
   *
   * @throws IllegalArgumentException if the URI is malformed
   * @throws WardenException if Redis cannot be reached
   */
  public static SingleServer connect(String uri, ClientSetup setup) {
    return new SingleServer(setup.uri("redisUri", uri, "Redis URI"), setup);
  }

  @Override
  public <T> CompletableFuture<T> dispatch(
      byte[] routingKey,
      ProtocolKeyword type,
      CommandOutput<String, String, T> output,
      CommandArgs<String, String> args) {
    return commands.dispatch(type, output, args).toCompletableFuture();
  }

  @Override
  public <T> CompletableFuture<T> command(
      String routingKey,
      Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
    return command.apply(commands).toCompletableFuture();
  }

  @Override
  public int shardOf(byte[] key) {
    return 0;
  }

  @Override
  public boolean shardedPubSub() {
    return false;
  }

  @Override
  public String fenceEpoch() {
    return "0";
  }

  @Override
  public PubSub pubSub() {
    return pubSub;
  }

  @Override
  public void onReconnect(Runnable action) {
    client.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
            if (handler == connection) {
              action.run();
            }
          }
        });
  }

  @Override
  public String describe() {
    return address;
  }

  @Override
  public void close() {
    replicaWaits.close();
    pubSub.close();
    connection.close();
    shutdown();
  }

  private void shutdown() {
    setup.shutdown(resources, client);
  }

  /** The server's SUBSCRIBE on one pub/sub connection. */
  private static final class ServerPubSub implements PubSub {
    private final StatefulRedisPubSubConnection<String, String> connection;

    ServerPubSub(StatefulRedisPubSubConnection<String, String> connection) {
      this.connection = connection;
    }

    @Override
    public void listen(Listener listener) {
      connection.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              listener.message(channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
              listener.subscribed(channel);
            }
          });
    }

    @Override
    public CompletableFuture<Void> subscribe(String... channels) {
      return connection.async().subscribe(channels).toCompletableFuture().thenApply(ok -> null);
    }

    @Override
    // FutureReturnValueIgnored: fire and forget: a failed unsubscribe only leaves an idle
    // subscription
    @SuppressWarnings("FutureReturnValueIgnored")
    public void unsubscribe(String... channels) {
      connection.async().unsubscribe(channels);
    }

    @Override
    public void close() {
      connection.close();
    }
  }
}
