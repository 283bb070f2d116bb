package dev.warden.internal.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The Redis deployment Warden talks to: where each command goes, and the pub/sub channel of
 * wake-ups. Every command names the key that routes it; scripts are routed by their first key (all
 * keys of one Warden object share a hash tag, so they share a slot). One server ({@link
 * SingleServer}) ignores the routing; a cluster sends each command to the master of the key's slot,
 * and Sentinel to the current master.
 *
 * <p>Thread-safety: every method may be called from any thread and does not block.
 */
public interface Deployment {
  /**
   * Sends a command built by the caller (a script call with pre-encoded arguments) to the node that
   * serves {@code routingKey}.
   */
  <T> CompletableFuture<T> dispatch(
      byte[] routingKey,
      ProtocolKeyword type,
      CommandOutput<String, String, T> output,
      CommandArgs<String, String> args);

  /** Runs one plain command on the node that serves {@code routingKey}. */
  <T> CompletableFuture<T> command(
      String routingKey,
      Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command);

  /**
   * Which keys may go together in one script call: keys with the same shard. One server (and
   * Sentinel) has one shard, {@code 0}; a cluster answers the key's hash slot.
   */
  int shardOf(byte[] key);

  /**
   * Whether scripts publish wake-ups with SPUBLISH (a cluster's sharded pub/sub) rather than
   * PUBLISH; see {@link Script#sharded()}.
   */
  boolean shardedPubSub();

  /**
   * The epoch argument of fencing tokens (prelude.lua's {@code mint_token}): {@code "0"} on one
   * server, Sentinel's config epoch of the current master, {@code "cluster"} on Redis Cluster (the
   * script reads the node's own config epoch, once per fence per master tenure: prelude.lua's
   * {@code cluster_epoch}, docs/fencing.md). A failover always raises it, so tokens minted after
   * one rank above every token minted before, whatever the clocks say.
   */
  String fenceEpoch();

  /** The wake-up channel: one pub/sub connection for the whole client. */
  PubSub pubSub();

  /**
   * Runs {@code action} each time a command connection was re-established after a loss, when Redis
   * may have lost data (a restart, a failover); on a cluster also when a slot gets another master.
   */
  void onReconnect(Runnable action);

  /**
   * The dedicated connections on which acquisitions wait for replicas (one per master, opened on
   * first use), used only under a replication policy. A deployment without replicas to wait for (a
   * test stub) has none: every wait fails.
   */
  default ReplicaWaits replicaWaits() {
    return new ReplicaWaits(
        key -> describe(),
        address ->
            CompletableFuture.failedFuture(
                new UnsupportedOperationException(describe() + " cannot wait for replicas")));
  }

  /** A description for messages: the address, without credentials. */
  String describe();

  /** Closes every connection. Idempotent. */
  void close();
}
