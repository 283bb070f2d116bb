package dev.warden.internal.redis.sentinel;

import dev.warden.internal.redis.PubSub;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The wake-up channel of a Sentinel deployment: SUBSCRIBE on the current master's pub/sub
 * connection, which moves with the master. It remembers every channel joined, so that {@link
 * #moveTo} subscribes all of them again on a new master; the server's confirmations then reach
 * {@link Listener#subscribed}, which wakes every waiter of the channel to check again.
 *
 * <p>Thread-safety: any thread. A subscription racing a move is not lost: {@link #subscribe} adds
 * the channel before it reads the current link, and a move publishes the new link before it reads
 * the channels, so the channel is subscribed on the new link by one or the other (or by both, which
 * only wakes the waiters twice). A subscription sent on a link that a move closed is sent again on
 * the new link.
 */
final class SentinelPubSub implements PubSub {
  private final Set<String> channels = ConcurrentHashMap.newKeySet();
  private final Supplier<MasterLink> current;
  private volatile Listener listener;

  /** Forwards each master link's messages and confirmations to the listener. */
  final RedisPubSubListener<String, String> forwarder =
      new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          Listener target = listener;
          if (target != null) {
            target.message(channel, message);
          }
        }

        @Override
        public void subscribed(String channel, long count) {
          Listener target = listener;
          if (target != null) {
            target.subscribed(channel);
          }
        }
      };

  /**
   * @param current reads the master link commands go to now
   */
  SentinelPubSub(Supplier<MasterLink> current) {
    this.current = current;
  }

  @Override
  public void listen(Listener listener) {
    this.listener = listener;
  }

  @Override
  public CompletableFuture<Void> subscribe(String... subscribed) {
    channels.addAll(List.of(subscribed));
    return subscribeOn(current.get(), subscribed);
  }

  private CompletableFuture<Void> subscribeOn(MasterLink link, String... subscribed) {
    return link.pubSub
        .async()
        .subscribe(subscribed)
        .toCompletableFuture()
        .<Void>thenApply(ok -> null)
        .exceptionallyCompose(
            failure -> {
              MasterLink now = current.get();
              return now != link && channels.contains(subscribed[0])
                  ? subscribeOn(now, subscribed)
                  : CompletableFuture.failedFuture(failure);
            });
  }

  @Override
  // FutureReturnValueIgnored: fire and forget: a failed unsubscribe only leaves an idle
  // subscription
  @SuppressWarnings("FutureReturnValueIgnored")
  public void unsubscribe(String... unsubscribed) {
    channels.removeAll(List.of(unsubscribed));
    current.get().pubSub.async().unsubscribe(unsubscribed);
  }

  /**
   * Subscribes every joined channel on {@code next}, which {@link #current} already returns. Does
   * not wait for the confirmations.
   */
  // FutureReturnValueIgnored: the confirmations arrive through the listener; a failure leaves the
  // waiters to their re-check interval, as a lost message would
  @SuppressWarnings("FutureReturnValueIgnored")
  void moveTo(MasterLink next) {
    String[] joined = channels.toArray(String[]::new);
    if (joined.length > 0) {
      next.pubSub.async().subscribe(joined);
    }
  }

  /** Nothing to do: {@link SentinelDeployment} closes the links. */
  @Override
  public void close() {}
}
