package dev.warden.internal.redis.cluster;

import dev.warden.WardenException;
import dev.warden.internal.redis.ClientSetup;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.PubSub;
import dev.warden.internal.redis.ReplicaWaits;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * A Redis Cluster: one cluster command connection that sends each script to the master of its first
 * key's slot (following MOVED and ASK), and sharded pub/sub ({@link ShardedPubSub}) for wake-ups.
 * Every Warden object's keys and channel share its {@code {name}} hash tag, so each script call
 * touches one slot.
 *
 * <p>The topology is re-read on every adaptive trigger (MOVED, ASK, reconnects, uncovered slots,
 * unknown nodes), while the cluster's current epoch is above the topology's ({@link EpochWatch},
 * polled every {@link #EPOCH_POLL_MILLIS} over a connection the client has), and every {@link
 * #TOPOLOGY_REFRESH_MILLIS} in any case. When a refresh gives a slot another master, subscriptions
 * follow it and the {@link #onReconnect} actions run (the lease keeper then re-checks every hold,
 * so a hold lost with a failover is reported at once), as they do when any node's command
 * connection reconnects.
 *
 * <p>Thread-safety: every method may be called from any thread and does not block.
 */
public final class ClusterDeployment implements Deployment {
  private static final Logger log = LoggerFactory.getLogger(ClusterDeployment.class);

  /**
   * How often the client re-reads the topology (CLUSTER NODES) whatever happens: the last resort.
   * Lettuce's refresh opens a short-lived connection to every node and asks it CLUSTER NODES and
   * INFO: at 1 s, a connection per node per second per idle client. At 30 s (tried), one full suite
   * in three saw a client whose waiters were all parked keep its sharded subscription on the
   * demoted master after a graceful failover, so that it got no wake-up and no turn for 15 s
   * (ClusterFailoverIT); the epoch watch and the redirections did not move it (back to 1 s until
   * that path was understood). Found since: a demoted master accepts the SSUBSCRIBE that followed
   * its {@code sunsubscribe} push but hears nothing from the new master for a while, and a move
   * decided on the stale topology could take back the move the topology change had made (the
   * subscription then stayed there, no later change moving it): both fixed in {@link
   * ShardedPubSub}. The stall was not reproduced at 30 s (58 runs of the graceful failover test on
   * Redis and Valkey), but those two explain what it showed (a subscription left on the demoted
   * master with no later change to move it), and ClusterResubscriptionIT fails without the first
   * fix: 30 s again.
   */
  static final long TOPOLOGY_REFRESH_MILLIS = 30_000;

  /**
   * The shortest spacing of the refreshes that MOVED, ASK, reconnects and a risen epoch trigger.
   * Measured (scale-out.md section 2): with 1 s here (and a 1 s periodic refresh), writes failed
   * for about 4 s after a master was killed, against 8.3 s with Lettuce's defaults (no periodic
   * refresh, 5 s between adaptive ones).
   */
  static final long ADAPTIVE_REFRESH_MILLIS = 1_000;

  /**
   * How often one master is asked for the cluster's current epoch ({@link EpochWatch}), over a
   * command connection the client has: a failover this client's own traffic does not run into (a
   * takeover of a slot whose holds renew only every third of a lease) is seen by that, so this
   * period bounds how late a lost hold is reported and a wake-up subscription moves.
   */
  static final long EPOCH_POLL_MILLIS = 1_000;

  /** How many MOVED or ASK redirections one cluster command follows before it fails. */
  static final int MAX_REDIRECTS = 5;

  private final String seeds;
  private final ClientResources resources;
  private final ClientSetup setup;
  private final RedisClusterClient client;
  private final StatefulRedisClusterConnection<String, String> connection;
  private final RedisAdvancedClusterAsyncCommands<String, String> commands;
  private final ShardedPubSub pubSub;
  private final ReplicaWaits replicaWaits;
  // WAIT's own cluster connection, opened on first use; its node connections are WAIT's alone
  private CompletableFuture<StatefulRedisClusterConnection<String, String>> waitConnection;
  private final List<Runnable> reconnectActions = new CopyOnWriteArrayList<>();
  private final Disposable topologyEvents;
  private final EpochWatch epochWatch;

  /** Whether a refresh asked for by {@link #refreshForSubscriptions} is under way. */
  private final AtomicBoolean subscriptionRefresh = new AtomicBoolean();

  /** Command connections that connected at least once, to tell reconnects. Guarded by itself. */
  private final Set<RedisChannelHandler<?, ?>> connected =
      Collections.newSetFromMap(new WeakHashMap<>());

  /** The ids of every node of this cluster seen so far. */
  private final Set<String> nodeIds = ConcurrentHashMap.newKeySet();

  /** The node id owning each slot, at the last topology seen. Guarded by this. */
  private String[] owners;

  private ClusterDeployment(List<RedisURI> uris, ClientSetup setup) {
    this.seeds = uris.stream().map(ClientSetup::describe).collect(Collectors.joining(", "));
    this.setup = setup;
    this.resources = setup.resources();
    this.client = RedisClusterClient.create(resources, uris);
    Duration refresh = Duration.ofMillis(TOPOLOGY_REFRESH_MILLIS);
    Duration adaptive = Duration.ofMillis(ADAPTIVE_REFRESH_MILLIS);
    client.setOptions(
        setup
            .options(
                ClusterClientOptions.builder()
                    .topologyRefreshOptions(
                        ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(refresh)
                            // every adaptive trigger is on by default since Lettuce 7.0
                            .adaptiveRefreshTriggersTimeout(adaptive)
                            .build())
                    .maxRedirects(MAX_REDIRECTS))
            .build());
    String target = "the Redis Cluster at " + seeds;
    this.connection = ClientSetup.connect(target, client::connect, this::shutdown);
    this.commands = connection.async();
    this.pubSub =
        new ShardedPubSub(
            ClientSetup.connect(target, client::connectPubSub, this::shutdown),
            setup.clientName(),
            setup.timer(),
            this::refreshForSubscriptions);
    client.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
            if (handler instanceof StatefulRedisPubSubConnection) {
              pubSub.reconnected(handler); // Lettuce's own re-subscription fails across slots
            }
          }
        });
    this.replicaWaits =
        new ReplicaWaits(
            key -> {
              RedisURI master =
                  connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key)).getUri();
              return master.getHost() + ":" + master.getPort();
            },
            address -> {
              int colon = address.lastIndexOf(':');
              return waitConnection()
                  .thenCompose(
                      dedicated ->
                          dedicated.getConnectionAsync(
                              address.substring(0, colon),
                              Integer.parseInt(address.substring(colon + 1))));
            });
    this.owners = ownersOf(client.getPartitions());
    // Lettuce 7.7 publishes the event after reloading its partitions, earlier versions (7.5,
    // which Spring Boot 4.1 brings) before (lettuce#2860): the topology is read from the event,
    // never from the client, or a slot's new master goes unseen on those versions
    client.getPartitions().forEach(node -> nodeIds.add(node.getNodeId()));
    // the event bus is the client resources': when they are the application's, its other cluster
    // clients publish there too; only this cluster's events (sharing a node id) count
    this.topologyEvents =
        resources
            .eventBus()
            .get()
            .filter(ClusterTopologyChangedEvent.class::isInstance)
            .map(ClusterTopologyChangedEvent.class::cast)
            .filter(this::ofThisCluster)
            .subscribe(event -> topologyChanged(event.after()));
    this.epochWatch =
        new EpochWatch(
            connection,
            () ->
                connection.getPartitions().stream()
                    .mapToLong(RedisClusterNode::getConfigEpoch)
                    .max()
                    .orElse(0),
            setup.timer(),
            TimeUnit.MILLISECONDS.toNanos(EPOCH_POLL_MILLIS),
            this::refreshTopology);
  }

  /**
   * Connects to the cluster that {@code seedUris} belong to, naming every connection after the
   * set-up's client name.
   *
   * @throws IllegalArgumentException if a URI is malformed
   * @throws WardenException if no seed can be reached
   */
  public static ClusterDeployment connect(List<String> seedUris, ClientSetup setup) {
    List<RedisURI> uris = new ArrayList<>();
    for (int i = 0; i < seedUris.size(); i++) {
      RedisURI uri = setup.uri("seedUris[" + i + "]", seedUris.get(i), "Redis URI");
      if (uri.getSentinels() != null && !uri.getSentinels().isEmpty()) {
        throw new IllegalArgumentException(
            "seedUris["
                + i
                + "] must name a cluster node, not sentinels: "
                + ClientSetup.describe(uri));
      }
      uri.setClientName(setup.clientName());
      uris.add(uri);
    }
    return new ClusterDeployment(uris, setup);
  }

  @Override
  public <T> CompletableFuture<T> dispatch(
      byte[] routingKey,
      ProtocolKeyword type,
      CommandOutput<String, String, T> output,
      CommandArgs<String, String> args) {
    return commands
        .dispatch(type, output, new Routed(routingKey).addAll(args))
        .toCompletableFuture();
  }

  @Override
  public <T> CompletableFuture<T> command(
      String routingKey,
      Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
    return command.apply(commands).toCompletableFuture();
  }

  @Override
  public int shardOf(byte[] key) {
    return SlotHash.getSlot(key);
  }

  @Override
  public boolean shardedPubSub() {
    return true;
  }

  @Override
  public String fenceEpoch() {
    return "cluster";
  }

  @Override
  public PubSub pubSub() {
    return pubSub;
  }

  @Override
  public void onReconnect(Runnable action) {
    reconnectActions.add(action);
    if (reconnectActions.size() > 1) {
      return;
    }
    client.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
            // Only a connection seen before counts: every topology refresh opens (and closes) a
            // connection to each node, and a first connection to a new master follows a topology
            // change, which runs the actions itself. Pub/sub connections:
            // ShardedPubSub.reconnected.
            if (!(handler instanceof StatefulRedisPubSubConnection) && connectedBefore(handler)) {
              runReconnectActions();
            }
          }
        });
  }

  @Override
  public String describe() {
    return "Redis Cluster " + seeds;
  }

  @Override
  public void close() {
    epochWatch.close();
    replicaWaits.close();
    topologyEvents.dispose();
    pubSub.close();
    connection.close();
    shutdown();
  }

  @Override
  public ReplicaWaits replicaWaits() {
    return replicaWaits;
  }

  private synchronized CompletableFuture<StatefulRedisClusterConnection<String, String>>
      waitConnection() {
    if (waitConnection == null || waitConnection.isCompletedExceptionally()) {
      waitConnection = client.connectAsync(StringCodec.UTF8);
    }
    return waitConnection;
  }

  private boolean ofThisCluster(ClusterTopologyChangedEvent event) {
    return ofCluster(nodeIds, event);
  }

  /**
   * Whether a topology event is of the cluster whose nodes {@code nodeIds} holds: one of its nodes,
   * before or after, is among them (node ids are random and 160 bits long, so another cluster's
   * never match). Adds the nodes of an event that is.
   */
  static boolean ofCluster(Set<String> nodeIds, ClusterTopologyChangedEvent event) {
    boolean ours =
        Stream.concat(event.before().stream(), event.after().stream())
            .anyMatch(node -> nodeIds.contains(node.getNodeId()));
    if (ours) {
      event.after().forEach(node -> nodeIds.add(node.getNodeId()));
    }
    return ours;
  }

  /** Asks Lettuce to re-read the topology now, without waiting for it. */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void refreshTopology() {
    client
        .refreshPartitionsAsync()
        .whenComplete(
            (ok, failure) -> {
              if (failure != null) {
                log.debug("{}: topology refresh failed: {}", seeds, failure.toString());
              }
            });
  }

  /**
   * Asks for a refresh for channels the server dropped while the topology still names the node that
   * dropped them ({@link ShardedPubSub}), unless one asked for so is still under way: every such
   * channel asks again every 100 ms until the topology changes, and one refresh serves them all.
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void refreshForSubscriptions() {
    if (!subscriptionRefresh.compareAndSet(false, true)) {
      return;
    }
    client
        .refreshPartitionsAsync()
        .whenComplete(
            (ok, failure) -> {
              subscriptionRefresh.set(false);
              if (failure != null) {
                log.debug("{}: topology refresh failed: {}", seeds, failure.toString());
              }
            });
  }

  private void topologyChanged(List<RedisClusterNode> nodes) {
    Partitions partitions = new Partitions();
    partitions.reload(nodes);
    String[] now = ownersOf(partitions);
    boolean moved;
    synchronized (this) {
      moved = !Arrays.equals(owners, now);
      owners = now;
    }
    pubSub.topologyChanged(partitions);
    if (moved) {
      runReconnectActions();
    }
  }

  /** Whether {@code handler} connected before; remembers it (weakly) if not. */
  private boolean connectedBefore(RedisChannelHandler<?, ?> handler) {
    synchronized (connected) {
      return !connected.add(handler);
    }
  }

  private void runReconnectActions() {
    for (Runnable action : reconnectActions) {
      action.run();
    }
  }

  private static String[] ownersOf(Partitions partitions) {
    String[] owners = new String[SlotHash.SLOT_COUNT];
    for (int slot = 0; slot < owners.length; slot++) {
      RedisClusterNode node = partitions.getPartitionBySlot(slot);
      owners[slot] = node == null ? null : node.getNodeId();
    }
    return owners;
  }

  private void shutdown() {
    setup.shutdown(resources, client);
  }

  /**
   * A script call's arguments that name their routing key: Lettuce's cluster writer sends a command
   * to the master of {@link #getFirstEncodedKey()}'s slot, and Warden's scripts add their keys as
   * plain pre-encoded bytes, which Lettuce would not recognize as keys.
   */
  private static final class Routed extends CommandArgs<String, String> {
    private final byte[] routingKey;

    Routed(byte[] routingKey) {
      super(StringCodec.UTF8);
      this.routingKey = routingKey;
    }

    @Override
    public ByteBuffer getFirstEncodedKey() {
      return routingKey == null ? null : ByteBuffer.wrap(routingKey).asReadOnlyBuffer();
    }
  }
}
