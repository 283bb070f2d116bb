package dev.warden.internal.redis.cluster;

import dev.warden.internal.base.Timer;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a failover or a slot's move to a cluster client that sends nothing to the nodes involved,
 * without opening connections: every period it asks one master (each in turn) for {@code CLUSTER
 * INFO} over the command connection the client already has to it, and asks for a topology refresh
 * while the cluster's current epoch is above every config epoch in the topology the client has.
 * Every failover (automatic, manual, forced or a takeover) and every slot moved to another node
 * raises the current epoch, which the nodes gossip to each other, and gives the node that took the
 * slots that epoch as its config epoch; so a change is seen within the period plus the gossip's
 * delay, whichever master is asked, and refreshes go on (one per poll) until the client's topology
 * shows it: a refresh that read a node that had not heard of the change yet is not the last. The
 * current epoch can also rise with no config epoch following it (an election that failed): then the
 * watch stops after {@link #ATTEMPTS} refreshes for that epoch.
 *
 * <p>A master that does not answer is skipped until its poll ends (at the command timeout): the
 * others are asked meanwhile. Its loss is also seen by Lettuce's adaptive refresh triggers
 * (reconnect attempts, MOVED, ASK).
 *
 * <p>Thread-safety: the polls are sent from the timer thread; replies arrive on the event loop.
 */
final class EpochWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EpochWatch.class);
  private static final String CURRENT_EPOCH = "cluster_current_epoch:";

  /** Refreshes asked for one current epoch the topology does not show, at most. */
  static final int ATTEMPTS = 5;

  private final StatefulRedisClusterConnection<String, String> connection;
  private final Runnable refresh;
  private final Set<String> polling = ConcurrentHashMap.newKeySet();
  private final LongSupplier known;
  private long pending = -1; // guarded by this: the epoch refreshes were asked for
  private int attempts; // guarded by this: how many, for that epoch
  private final Timer.Scheduled task;
  private int next; // the timer thread's

  /**
   * Starts polling at once, then every period.
   *
   * @param known the highest config epoch of the topology the client has now (a current epoch above
   *     it comes from a change the client has not seen); must not block
   * @param refresh asks for a topology refresh; must not block
   */
  EpochWatch(
      StatefulRedisClusterConnection<String, String> connection,
      LongSupplier known,
      Timer timer,
      long periodNanos,
      Runnable refresh) {
    this.connection = connection;
    this.known = known;
    this.refresh = refresh;
    Timer.Scheduled scheduled;
    try {
      scheduled = timer.scheduleAtFixedRate(this::poll, periodNanos);
      timer.execute(this::poll);
    } catch (RejectedExecutionException closing) {
      scheduled = null; // the Warden is closing
    }
    this.task = scheduled;
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void poll() {
    List<String> masters = new ArrayList<>();
    for (RedisClusterNode node : connection.getPartitions()) {
      if (node.getRole().isUpstream()
          && !node.is(RedisClusterNode.NodeFlag.FAIL)
          && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
        masters.add(node.getNodeId());
      }
    }
    if (masters.isEmpty()) {
      return;
    }
    next = (next + 1) % masters.size();
    String node = masters.get(next);
    if (!polling.add(node)) {
      return; // its last poll has not ended
    }
    try {
      connection
          .getConnectionAsync(node)
          .thenCompose(nodeConnection -> nodeConnection.async().clusterInfo())
          .whenComplete(
              (info, failure) -> {
                polling.remove(node);
                if (failure != null) {
                  log.debug("CLUSTER INFO of node {} failed: {}", node, failure.toString());
                } else {
                  seen(info);
                }
              });
    } catch (RuntimeException e) {
      polling.remove(node);
      log.debug("CLUSTER INFO of node {} not sent: {}", node, e.toString());
    }
  }

  /**
   * Asks for a refresh if {@code info} shows a current epoch above every config epoch of the
   * client's topology, unless {@link #ATTEMPTS} were asked for that epoch already.
   */
  void seen(String info) {
    long epoch = currentEpoch(info);
    if (epoch < 0 || epoch <= known.getAsLong()) {
      return;
    }
    synchronized (this) {
      if (epoch > pending) {
        pending = epoch;
        attempts = 0;
      } else if (epoch < pending || attempts >= ATTEMPTS) {
        return;
      }
      attempts++;
    }
    refresh.run();
  }

  /** The current epoch in a CLUSTER INFO reply, or -1 if it has none. */
  static long currentEpoch(String info) {
    int at = info.indexOf(CURRENT_EPOCH);
    if (at < 0) {
      return -1;
    }
    int from = at + CURRENT_EPOCH.length();
    int to = from;
    while (to < info.length() && Character.isDigit(info.charAt(to))) {
      to++;
    }
    return to == from ? -1 : Long.parseLong(info.substring(from, to));
  }

  @Override
  public void close() {
    if (task != null) {
      task.cancel();
    }
  }
}
