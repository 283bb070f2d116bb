package dev.warden.internal.redis.sentinel;

import dev.warden.WardenException;
import dev.warden.internal.redis.ClientSetup;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.PubSub;
import dev.warden.internal.redis.ReplicaWaits;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master managed by Redis Sentinel ({@code redis-sentinel://h1:p1,h2:p2#name}), followed across
 * failovers. The sentinels are asked where the master is ({@code SENTINEL MASTER <name>}); Warden
 * then talks to that node directly over a {@link MasterLink} (a command and a pub/sub connection),
 * after checking that it answers {@code ROLE} as a master.
 *
 * <p><b>Following a failover.</b> A {@link SentinelWatcher} listens to every sentinel, and a {@link
 * SentinelFollower} acts on its own thread. <em>Early move:</em> when the sentinel leading a
 * failover names the replica it is about to promote ({@code +selected-slave}, about 100 ms before
 * its {@code REPLICAOF NO ONE} and about a second before the sentinels announce the switch), the
 * follower opens a link to that replica and makes it the one every later command takes at once, so
 * nothing more is written to the master being demoted (which stays writable until the sentinels
 * convert it, about 10 s later); writes sent before the promotion get READONLY, which callers
 * retry. Once the replica answers {@code ROLE} as master (polled every {@link
 * SentinelFollower#PROMOTION_POLL_MILLIS}), the fence epoch is raised above the old one and the
 * {@link #onReconnect} actions run: the lease keeper checks every hold on the new master and
 * reports those the failover lost. If it is not promoted within {@link
 * SentinelFollower#PROMOTION_WAIT_MILLIS} (an aborted failover), the sentinels are asked again.
 * <em>Switch:</em> on {@code +switch-master}, and every {@link SentinelFollower#POLL_MILLIS} (a
 * lost announcement, a sentinel that was down, a failover that took several votes), the sentinels
 * are asked ({@code SENTINEL MASTER}); when they name another master with a configuration epoch at
 * least the current one, the follower opens a link to it, checks {@code ROLE}, and swaps it in.
 *
 * <p>A swap (1) sets the new {@link #fenceEpoch()}, then the new link, (2) subscribes every joined
 * channel on it (the confirmations wake every waiter to check again), (3) closes the old link and
 * waits for the close, which completes every command still pending on it. A command that took the
 * old link just before the swap fails with a connection error, which Warden's callers retry on the
 * new link. Writes a master accepted after its replica was promoted are lost with it: asynchronous
 * replication cannot do better, but the early move keeps that window to the few milliseconds
 * between the promotion and the next {@code ROLE} answer.
 *
 * <p>Thread-safety: every method may be called from any thread and does not block, except the
 * constructor ({@link #connect}) and {@link #close()}. The follower's daemon thread ({@code
 * warden-sentinel-N}) may block on connecting and on the sentinels' and nodes' answers.
 */
public final class SentinelDeployment implements Deployment {
  private static final Logger log = LoggerFactory.getLogger(SentinelDeployment.class);

  private final String masterName;
  private final String description;
  private final String clientName;
  private final RedisURI template;
  private final Duration commandTimeout;
  private final ClientResources resources;
  private final ClientSetup setup;
  private final RedisClient masterClient;
  private final RedisClient sentinelClient;
  private final SentinelWatcher watcher;
  private final SentinelPubSub pubSub;
  private final SentinelFollower follower;
  private final ReplicaWaits replicaWaits;
  private final List<Runnable> reconnectActions = new CopyOnWriteArrayList<>();
  private volatile MasterLink current;
  private volatile long epoch;
  private volatile String epochText; // epoch as fenceEpoch() gives it: built once per change
  private boolean closed; // guarded by this

  private SentinelDeployment(RedisURI uri, ClientSetup setup) {
    this.masterName = uri.getSentinelMasterId();
    this.clientName = setup.clientName();
    this.template = uri;
    this.commandTimeout = setup.commandTimeout();
    this.setup = setup;
    this.resources = setup.resources();
    this.masterClient = RedisClient.create(resources);
    masterClient.setOptions(setup.options(ClientOptions.builder()).build());
    this.sentinelClient = RedisClient.create(resources);
    sentinelClient.setOptions(
        setup
            .options(ClientOptions.builder())
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    this.watcher = new SentinelWatcher(sentinelClient, uri, commandTimeout, setup.clock());
    this.description =
        (uri.isSsl() ? "rediss-sentinel://" : "redis-sentinel://")
            + watcher.addresses()
            + "#"
            + masterName;
    this.pubSub = new SentinelPubSub(() -> current);
    this.replicaWaits =
        new ReplicaWaits(
            key -> current.host + ":" + current.port,
            address -> {
              int colon = address.lastIndexOf(':');
              RedisURI node =
                  MasterLink.address(
                      template,
                      address.substring(0, colon),
                      Integer.parseInt(address.substring(colon + 1)),
                      clientName + "-wait");
              return masterClient.connectAsync(StringCodec.UTF8, node).toCompletableFuture();
            });
    this.follower = new SentinelFollower(this, watcher, masterName, setup.clock(), setup.timer());
    SentinelWatcher.Answer first =
        ClientSetup.connect(
            "the Redis master '" + masterName + "' through the sentinels at " + watcher.addresses(),
            () -> {
              SentinelWatcher.Answer answer = watcher.ask();
              this.current = open(answer.host(), answer.port(), /* requireMaster= */ true);
              return answer;
            },
            () -> {
              follower.stop(commandTimeout);
              watcher.close();
              shutdown();
            });
    setEpoch(first.epoch());
    masterClient.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
            if (handler == current.connection) {
              runReconnectActions(); // the same master came back: it may have lost data
            }
          }
        });
    follower.start();
  }

  /**
   * Asks the sentinels of a {@code redis-sentinel://} (or {@code rediss-sentinel://}) URI for the
   * master and connects to it, naming the connections after the set-up's client name. The URI's
   * password, TLS settings and database apply to the data nodes, as in Lettuce.
   *
   * @throws IllegalArgumentException if the URI is malformed or names no sentinel and master
   * @throws WardenException if no sentinel answers, or the master they name cannot be reached
   */
  public static SentinelDeployment connect(String uri, ClientSetup setup) {
    RedisURI redisUri = setup.uri("redisUri", uri, "Redis Sentinel URI");
    if (redisUri.getSentinels().isEmpty() || redisUri.getSentinelMasterId() == null) {
      throw new IllegalArgumentException(
          "redisUri must name sentinels and a master: redis-sentinel://host:port,...#master");
    }
    return new SentinelDeployment(redisUri, setup);
  }

  /** Whether {@code uri} is a Sentinel URI, which {@link #connect} takes. */
  public static boolean isSentinelUri(String uri) {
    return uri.startsWith(RedisURI.URI_SCHEME_REDIS_SENTINEL + "://")
        || uri.startsWith(RedisURI.URI_SCHEME_REDIS_SENTINEL_SECURE + "://");
  }

  @Override
  public <T> CompletableFuture<T> dispatch(
      byte[] routingKey,
      ProtocolKeyword type,
      CommandOutput<String, String, T> output,
      CommandArgs<String, String> args) {
    return current.commands.dispatch(type, output, args).toCompletableFuture();
  }

  @Override
  public <T> CompletableFuture<T> command(
      String routingKey,
      Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
    return command.apply(current.commands).toCompletableFuture();
  }

  @Override
  public int shardOf(byte[] key) {
    return 0;
  }

  @Override
  public boolean shardedPubSub() {
    return false;
  }

  /**
   * Returns the sentinels' configuration epoch of the current master, as a decimal string. A
   * failover raises it; it changes just before commands start to go to the new master (on an early
   * move, before the replica is promoted), so a call that read it before a switch and is sent after
   * it (its thread paused in between) may still carry the old epoch to the new master.
   */
  @Override
  public String fenceEpoch() {
    return epochText;
  }

  @Override
  public PubSub pubSub() {
    return pubSub;
  }

  /**
   * Runs {@code action} after each switch to a new master and each time the current master's
   * command connection was re-established after a loss.
   */
  @Override
  public void onReconnect(Runnable action) {
    reconnectActions.add(action);
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public void close() {
    MasterLink link;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      link = current;
    }
    follower.stop(commandTimeout);
    watcher.close();
    replicaWaits.close();
    awaitClosed(link);
    shutdown();
  }

  @Override
  public ReplicaWaits replicaWaits() {
    return replicaWaits;
  }

  /** The link every command takes now. */
  MasterLink current() {
    return current;
  }

  /** The fence epoch now, as a number. */
  long epoch() {
    return epoch;
  }

  /** Sets the fence epoch (the link stays). */
  void epoch(long newEpoch) {
    setEpoch(newEpoch);
  }

  private void setEpoch(long newEpoch) {
    epochText = Long.toString(newEpoch);
    epoch = newEpoch;
  }

  /** Opens a link to {@code host:port}; see {@link MasterLink#open}. */
  MasterLink open(String host, int port, boolean requireMaster) {
    return MasterLink.open(
        masterClient, template, host, port, clientName, pubSub.forwarder, requireMaster);
  }

  /**
   * Makes {@code next} the link every later command takes, with {@code newEpoch}, subscribes the
   * joined channels on it and closes the old link; returns that old link, or null (after closing
   * {@code next}) if this deployment is closed.
   */
  MasterLink swapTo(MasterLink next, long newEpoch) {
    MasterLink previous;
    synchronized (this) {
      if (closed) {
        awaitClosed(next);
        return null;
      }
      previous = current;
      setEpoch(newEpoch); // before the link: see fenceEpoch()
      current = next;
    }
    pubSub.moveTo(next);
    awaitClosed(previous);
    return previous;
  }

  void runReconnectActions() {
    for (Runnable action : reconnectActions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn("An action after a change of Redis master '{}' failed", masterName, e);
      }
    }
  }

  private void awaitClosed(MasterLink link) {
    try {
      link.closeAsync().get(commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.debug("Closing the link to {} did not complete: {}", link, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void shutdown() {
    setup.shutdown(resources, masterClient, sentinelClient);
  }
}
