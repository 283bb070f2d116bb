package dev.warden.internal.redis.cluster;

import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.redis.PubSub;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A cluster's sharded pub/sub: each channel is subscribed with SSUBSCRIBE on the master that owns
 * its slot, sent on that node's own pub/sub connection (not through Lettuce's routing), and follows
 * the slot when it moves.
 *
 * <p>Lettuce 7.7 drops a sharded subscription for good when the server pushes {@code sunsubscribe}
 * (a failover or a slot move: lettuce#3213), so this class subscribes again by itself: on a {@code
 * sunsubscribed} push for a channel it still wants, on a topology change that gives the slot
 * another owner ({@link #topologyChanged}), and on an SSUBSCRIBE answered with MOVED (or ASK),
 * which names the node to try. After a move it sends a best-effort SUNSUBSCRIBE to the old node,
 * and delivers messages only from the node it subscribed last, so a demoted master that still
 * receives the shard's messages causes no duplicates. A move is decided on the node the channel was
 * on when it was decided, and dropped if another move came first: a {@code sunsubscribed} push read
 * against the topology Lettuce had a moment before must not take back the move a topology change
 * has just made.
 *
 * <p>A channel the server dropped is not subscribed again on the node that dropped it while the
 * client's topology still names that node (it has not seen the failover yet): a demoted master, now
 * the new master's replica, accepts the SSUBSCRIBE (a replica serves its master's slots' sharded
 * channels, so no MOVED comes), but gets nothing the new master publishes until the new master
 * counts it among its replicas, seconds later (Redis 7.0.15: about 4 s after a graceful failover).
 * A waiter whose wake-up is published then would sleep until its re-check, and a contended lock
 * whose other client hands it between its own threads publishes nothing more. Instead the topology
 * is refreshed and the channel waits, retried every 100 ms, until the topology names another owner
 * (or for at most {@link #MAX_STALE_RETRIES} retries, then it is subscribed on the node the
 * topology names). A confirmed subscription (the first, or after a move or a reconnect) is reported
 * to {@link Listener#subscribed}, which wakes the channel's waiters: messages may have been lost
 * meanwhile. After a node's connection reconnects, it subscribes that node's channels again one by
 * one ({@link #reconnected}).
 *
 * <p>Failures: a first SSUBSCRIBE that fails for another reason than a redirection fails its future
 * ({@code Subscriptions} subscribes anew on the next join); a re-subscription that fails is tried
 * again every 100 ms while the channel is wanted. ASK is followed without ASKING, so while a slot
 * migrates the importing node answers MOVED back and the retries go on until the migration ends
 * (the waiters' {@code recheckInterval} bounds what that costs them).
 *
 * <p>Thread-safety: every method may be called from any thread and does not block. Listener calls
 * and moves run on Lettuce's event loop (topology changes on its event executor), retries on the
 * Warden's timer after their pause; none blocks.
 */
final class ShardedPubSub implements PubSub {
  /** Redirections followed by one subscription attempt. */
  private static final int MAX_REDIRECTS = 5;

  /** Pause before a subscription that failed for another reason than MOVED is tried again. */
  private static final long RETRY_MILLIS = 100;

  /**
   * How many times, {@link #RETRY_MILLIS} apart, a channel the server dropped waits for the
   * topology to name another owner than the node that dropped it (each retry asks for a refresh).
   */
  static final int MAX_STALE_RETRIES = 30;

  private final StatefulRedisClusterPubSubConnection<String, String> cluster;
  private final String clientName;
  private final Timer timer;
  private final Runnable refreshTopology;
  private final Map<String, Wanted> channels = new ConcurrentHashMap<>();
  private final Map<String, StatefulRedisPubSubConnection<String, String>> nodes =
      new ConcurrentHashMap<>();
  private volatile Listener listener;
  private volatile boolean closed;

  /** A channel Warden wants, and the node it is subscribed (or being subscribed) on. */
  private static final class Wanted {
    final String channel;
    final int slot;
    final CompletableFuture<Void> confirmed = new CompletableFuture<>();

    /** host:port of the node subscribed last; null while none is known. Guarded by this. */
    String node;

    Wanted(String channel) {
      this.channel = channel;
      this.slot = SlotHash.getSlot(channel);
    }

    synchronized String node() {
      return node;
    }
  }

  /**
   * @param refreshTopology asks Lettuce to re-read the topology, without waiting for it
   */
  ShardedPubSub(
      StatefulRedisClusterPubSubConnection<String, String> cluster,
      String clientName,
      Timer timer,
      Runnable refreshTopology) {
    this.cluster = cluster;
    this.clientName = clientName;
    this.timer = timer;
    this.refreshTopology = refreshTopology;
  }

  @Override
  public void listen(Listener listener) {
    this.listener = listener;
  }

  @Override
  public CompletableFuture<Void> subscribe(String... subscribed) {
    CompletableFuture<?>[] confirmed = new CompletableFuture<?>[subscribed.length];
    for (int i = 0; i < subscribed.length; i++) {
      Wanted wanted = new Wanted(subscribed[i]);
      channels.put(wanted.channel, wanted);
      moveTo(wanted, null, ownerOf(cluster.getPartitions(), wanted.slot), 0);
      confirmed[i] = wanted.confirmed;
    }
    return CompletableFuture.allOf(confirmed);
  }

  @Override
  public void unsubscribe(String... unsubscribed) {
    for (String channel : unsubscribed) {
      unsubscribeOne(channel);
    }
  }

  private void unsubscribeOne(String channel) {
    Wanted wanted = channels.remove(channel);
    if (wanted != null) {
      String node;
      synchronized (wanted) {
        node = wanted.node;
        wanted.node = null;
      }
      if (node != null) {
        unsubscribeOn(node, channel);
      }
    }
  }

  /**
   * Moves every channel whose slot has another owner in {@code partitions} (read after Lettuce's
   * topology event), and retries the channels with no node.
   */
  void topologyChanged(Partitions partitions) {
    for (Wanted wanted : channels.values()) {
      String owner = ownerOf(partitions, wanted.slot);
      String now = wanted.node();
      if (owner != null && !owner.equals(now)) {
        moveTo(wanted, now, owner, 0);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    cluster.close();
  }

  /**
   * Subscribes {@code wanted} on {@code node} (host:port; null if no owner is known, then retried
   * later), and unsubscribes it from the node it was on before; does nothing if the channel is no
   * longer on {@code from} (null: none), the node this move was decided on: another move came
   * first, on a later state.
   */
  // FutureReturnValueIgnored: the outcome is handled in whenComplete, on the event loop
  @SuppressWarnings("FutureReturnValueIgnored")
  private void moveTo(Wanted wanted, String from, String node, int redirects) {
    String old;
    synchronized (wanted) {
      if (closed || channels.get(wanted.channel) != wanted || !Objects.equals(wanted.node, from)) {
        return;
      }
      old = wanted.node;
      wanted.node = node;
    }
    if (old != null && !old.equals(node)) {
      unsubscribeOn(old, wanted.channel);
    }
    if (node == null) {
      retryLater(wanted);
      return;
    }
    connectionTo(node)
        .thenCompose(c -> c.async().ssubscribe(wanted.channel).toCompletableFuture())
        .whenComplete(
            (count, failure) -> {
              if (failure == null) {
                subscribedOn(wanted, node);
              } else {
                failedOn(wanted, node, redirects, failure);
              }
            });
  }

  private void subscribedOn(Wanted wanted, String node) {
    if (channels.get(wanted.channel) != wanted) {
      // unsubscribed while the SSUBSCRIBE was under way (its SUNSUBSCRIBE may have gone first)
      Wanted now = channels.get(wanted.channel);
      if (now == null || !node.equals(now.node())) {
        unsubscribeOn(node, wanted.channel);
      }
      return;
    }
    wanted.confirmed.complete(null);
  }

  private void failedOn(Wanted wanted, String node, int redirects, Throwable failure) {
    if (closed || channels.get(wanted.channel) != wanted || !node.equals(wanted.node())) {
      return; // given up, or moved on meanwhile
    }
    String target = redirection(Failures.unwrap(failure));
    if (target != null && redirects < MAX_REDIRECTS) {
      moveTo(wanted, node, target, redirects + 1);
      return;
    }
    if (!wanted.confirmed.isDone()) {
      // the first subscription: Subscriptions subscribes anew on the next join
      channels.remove(wanted.channel, wanted);
      wanted.confirmed.completeExceptionally(failure);
      return;
    }
    retryLater(wanted);
  }

  /** Has the timer try {@code wanted} again after {@link #RETRY_MILLIS}, unless it is stopping. */
  private void retryLater(Wanted wanted) {
    later(() -> retry(wanted));
  }

  private void later(Runnable task) {
    try {
      timer.schedule(task, TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
    } catch (RejectedExecutionException closing) {
      // the Warden is closing: nothing to subscribe for
    }
  }

  private void retry(Wanted wanted) {
    moveTo(wanted, wanted.node(), ownerOf(cluster.getPartitions(), wanted.slot), 0);
  }

  /**
   * The server dropped {@code wanted} on {@code node}, where it still is: its slot has another
   * owner now. Subscribes it on the owner the topology names, unless that is {@code node} still
   * (the client has not seen the change yet): then asks for a refresh and looks again after {@link
   * #RETRY_MILLIS}, up to {@link #MAX_STALE_RETRIES} times.
   */
  private void dropped(Wanted wanted, String node, int retries) {
    if (closed || channels.get(wanted.channel) != wanted || !node.equals(wanted.node())) {
      return; // given up, or moved on meanwhile
    }
    String owner = ownerOf(cluster.getPartitions(), wanted.slot);
    if (node.equals(owner) && retries < MAX_STALE_RETRIES) {
      refreshTopology.run();
      later(() -> dropped(wanted, node, retries + 1));
      return;
    }
    moveTo(wanted, node, owner, 0);
  }

  // FutureReturnValueIgnored: best effort: a SUNSUBSCRIBE that fails leaves an idle subscription
  // whose messages are not delivered (they come from a node that is not the channel's now)
  @SuppressWarnings("FutureReturnValueIgnored")
  private void unsubscribeOn(String node, String channel) {
    if (closed) {
      return;
    }
    connectionTo(node).thenAccept(c -> c.async().sunsubscribe(channel));
  }

  /**
   * After a node's pub/sub connection reconnected, subscribes every channel wanted there again, one
   * SSUBSCRIBE each: Lettuce re-sends a connection's sharded channels in one SSUBSCRIBE, which
   * Redis refuses (CROSSSLOT) when they lie in several slots of the node, and the subscriptions
   * would be gone for good. Each confirmation wakes its channel's waiters ({@link
   * NodeListener#ssubscribed}).
   */
  void reconnected(Object connection) {
    String node = null;
    for (Map.Entry<String, StatefulRedisPubSubConnection<String, String>> entry :
        nodes.entrySet()) {
      if (entry.getValue() == connection) {
        node = entry.getKey();
      }
    }
    if (node == null || closed) {
      return; // a first connection, or not one of this class's
    }
    for (Wanted wanted : channels.values()) {
      if (node.equals(wanted.node())) {
        moveTo(wanted, node, node, 0);
      }
    }
  }

  /** The pub/sub connection to one node, with this class's listener on it. */
  private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectionTo(
      String node) {
    StatefulRedisPubSubConnection<String, String> known = nodes.get(node);
    if (known != null && known.isOpen()) {
      return CompletableFuture.completedFuture(known);
    }
    int colon = node.lastIndexOf(':');
    return cluster
        .getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
        .thenApply(
            connection -> {
              adopt(node, connection);
              return connection;
            });
  }

  // FutureReturnValueIgnored: the name only labels the connection in CLIENT LIST
  @SuppressWarnings("FutureReturnValueIgnored")
  private void adopt(String node, StatefulRedisPubSubConnection<String, String> connection) {
    synchronized (nodes) {
      if (nodes.get(node) == connection) {
        return;
      }
      nodes.put(node, connection);
    }
    connection.addListener(new NodeListener(node));
    connection.async().clientSetname(clientName + "-pubsub");
  }

  /** The node named by a MOVED or ASK reply, as host:port; null for any other failure. */
  static String redirection(Throwable failure) {
    if (!(failure instanceof RedisCommandExecutionException) || failure.getMessage() == null) {
      return null;
    }
    String message = failure.getMessage().trim();
    if (!message.startsWith("MOVED ") && !message.startsWith("ASK ")) {
      return null;
    }
    int space = message.lastIndexOf(' ');
    return space < 0 || message.indexOf(':', space) < 0 ? null : message.substring(space + 1);
  }

  /** host:port of the master that owns {@code slot}, or null if none does. */
  static String ownerOf(Partitions partitions, int slot) {
    RedisClusterNode owner = partitions.getPartitionBySlot(slot);
    if (owner == null || owner.getUri() == null) {
      return null;
    }
    RedisURI uri = owner.getUri();
    return uri.getHost() + ":" + uri.getPort();
  }

  /** Receives one node's pushes, knowing which node they come from. */
  private final class NodeListener extends RedisPubSubAdapter<String, String> {
    private final String node;

    NodeListener(String node) {
      this.node = node;
    }

    @Override
    public void smessage(String channel, String message) {
      Listener target = listener;
      Wanted wanted = channels.get(channel);
      if (target != null && wanted != null && node.equals(wanted.node())) {
        target.message(channel, message);
      }
    }

    @Override
    public void ssubscribed(String channel, long count) {
      Listener target = listener;
      Wanted wanted = channels.get(channel);
      if (wanted != null && node.equals(wanted.node())) {
        if (target != null) {
          target.subscribed(channel);
        }
      } else if (wanted == null || wanted.node() != null) {
        // a subscription not wanted on this node (an SSUBSCRIBE sent before a move, or one that
        // Lettuce re-sent by itself after a reconnect): its messages are not delivered, so end it
        unsubscribeOn(node, channel);
      }
    }

    @Override
    public void sunsubscribed(String channel, long count) {
      Wanted wanted = channels.get(channel);
      if (wanted != null && node.equals(wanted.node())) {
        // the server dropped a channel still wanted: its slot moved (see the class comment)
        dropped(wanted, node, 0);
      }
    }
  }
}
