package dev.warden.internal.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * {@code WAIT} for replicas on connections of their own, one per master, never on the shared
 * command connection: {@code WAIT} blocks its connection until the replicas acknowledge or its
 * timeout passes, and every command behind it would wait as long.
 *
 * <p>{@code WAIT} counts the acknowledgement of the earlier writes <em>of its connection</em>, so a
 * short-lived marker key in the lock's slot ({@code <lock key>:replicated}, 100 ms) is written on
 * the dedicated connection first: it follows the acquisition in the master's replication stream,
 * and a replica that acknowledged it has the acquisition too.
 *
 * <p>Thread-safe; never blocks. A connection is opened on first use and dropped when it fails.
 */
public final class ReplicaWaits {
  private static final long MARKER_MILLIS = 100;

  /** The master's address for a routing key, as {@code host:port}. */
  private final Function<String, String> masterOf;

  /** Opens a connection to {@code host:port}. */
  private final Function<String, CompletableFuture<StatefulRedisConnection<String, String>>> opener;

  private final Map<String, CompletableFuture<StatefulRedisConnection<String, String>>> open =
      new ConcurrentHashMap<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong shortfalls = new AtomicLong();
  private volatile boolean closed;

  /**
   * @param masterOf the address ({@code host:port}) of the master that serves a routing key
   * @param opener opens a connection to an address
   */
  public ReplicaWaits(
      Function<String, String> masterOf,
      Function<String, CompletableFuture<StatefulRedisConnection<String, String>>> opener) {
    this.masterOf = masterOf;
    this.opener = opener;
  }

  /**
   * Writes the marker of {@code lockKey} and waits for {@code replicas} replicas to acknowledge it,
   * at most {@code timeoutMillis}, on the dedicated connection to the lock's master; completes with
   * how many did.
   */
  public CompletableFuture<Integer> await(String lockKey, int replicas, long timeoutMillis) {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("closed"));
    }
    String master = masterOf.apply(lockKey);
    CompletableFuture<StatefulRedisConnection<String, String>> connection =
        open.computeIfAbsent(master, opener);
    return connection
        .thenCompose(
            opened -> {
              RedisAsyncCommands<String, String> commands = opened.async();
              RedisFuture<String> marker =
                  commands.set(lockKey + ":replicated", "1", SetArgs.Builder.px(MARKER_MILLIS));
              RedisFuture<Long> waited = commands.waitForReplication(replicas, timeoutMillis);
              return marker.toCompletableFuture().thenCombine(waited, (ok, count) -> count);
            })
        .handle(
            (count, failure) -> {
              if (failure != null) {
                open.remove(master, connection); // reopened on next use
                throw new CompletionException(Failures.unwrap(failure));
              }
              (count >= replicas ? acknowledged : shortfalls).incrementAndGet();
              return count.intValue();
            });
  }

  /** Acquisitions acknowledged by as many replicas as asked. */
  public long acknowledged() {
    return acknowledged.get();
  }

  /** Acquisitions acknowledged by fewer replicas than asked. */
  public long shortfalls() {
    return shortfalls.get();
  }

  /**
   * Stops opening connections. Idempotent. The connections themselves close with the client that
   * opened them, when the deployment shuts it down.
   */
  public void close() {
    closed = true;
    open.clear();
  }
}
