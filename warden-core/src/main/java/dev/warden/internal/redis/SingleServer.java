package dev.warden.internal.redis;

import dev.warden.TlsOptions;
import dev.warden.WardenException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
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
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One Redis server (or whatever one Lettuce URI reaches): a command connection and a pub/sub
 * connection, both reconnecting by themselves.
 */
public final class SingleServer implements Deployment {
  private final String address;
  private final ClientResources resources;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> commands;
  private final ServerPubSub pubSub;
  private final ReplicaWaits replicaWaits;

  private SingleServer(RedisURI uri, Duration commandTimeout, String clientName, TlsOptions tls) {
    this.address = Redaction.redact(uri.toString());
    this.resources = ClientThreads.create();
    this.client = RedisClient.create(resources, uri);
    client.setOptions(
        TlsSetup.apply(
                ClientOptions.builder()
                    .autoReconnect(true)
                    .replayFilter(new NoScriptReplay())
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout)),
                tls)
            .build());
    StatefulRedisConnection<String, String> commandConnection = null;
    StatefulRedisPubSubConnection<String, String> pubSubConnection = null;
    try {
      commandConnection = client.connect();
      pubSubConnection = client.connectPubSub();
      commandConnection.sync().clientSetname(clientName);
      pubSubConnection.sync().clientSetname(clientName + "-pubsub");
    } catch (RedisException e) {
      if (commandConnection != null) {
        commandConnection.close();
      }
      shutdown();
      throw new WardenException(
          "cannot connect to Redis at " + address + ": " + Failures.connectReason(e), e);
    }
    this.connection = commandConnection;
    this.commands = connection.async();
    this.pubSub = new ServerPubSub(pubSubConnection);
    String self = uri.getHost() + ":" + uri.getPort();
    this.replicaWaits =
        new ReplicaWaits(
            key -> self,
            address -> client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture());
  }

  @Override
  public ReplicaWaits replicaWaits() {
    return replicaWaits;
  }

  /**
   * Connects to the server at {@code uri}, naming both connections after {@code clientName}, with
   * TLS if the URI says {@code rediss://} or {@code tls} is given (else null).
   *
   * @throws IllegalArgumentException if the URI is malformed
   * @throws WardenException if Redis cannot be reached
   */
  public static SingleServer connect(
      String uri, Duration commandTimeout, String clientName, TlsOptions tls) {
    RedisURI redisUri;
    try {
      redisUri = RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          Redaction.redact(
              "redisUri is not a valid Redis URI: " + uri + " (" + e.getMessage() + ")"));
    }
    redisUri.setTimeout(commandTimeout);
    return new SingleServer(TlsSetup.apply(redisUri, tls), commandTimeout, clientName, tls);
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
    ClientThreads.shutdown(resources, client);
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
    public CompletableFuture<Void> subscribe(String channel) {
      return connection.async().subscribe(channel).toCompletableFuture().thenApply(ok -> null);
    }

    @Override
    // FutureReturnValueIgnored: fire and forget: a failed unsubscribe only leaves an idle
    // subscription
    @SuppressWarnings("FutureReturnValueIgnored")
    public void unsubscribe(String channel) {
      connection.async().unsubscribe(channel);
    }

    @Override
    public void close() {
      connection.close();
    }
  }
}
