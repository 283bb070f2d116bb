package dev.warden.internal.wait;

import dev.warden.internal.redis.PubSub;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A pub/sub connection the test drives: subscriptions complete when the test {@link #confirm}s
 * them, messages arrive when it {@link #publish}es; every SUBSCRIBE and UNSUBSCRIBE is recorded by
 * its first channel (the object's shared one), and the channels it also named in {@link
 * #alongside}.
 */
final class StubPubSub implements PubSub {
  final List<String> subscribes = new ArrayList<>();
  final List<String> unsubscribes = new ArrayList<>();
  final List<String> alongside = new ArrayList<>();
  private final Map<String, CompletableFuture<Void>> pending = new HashMap<>();
  private Listener listener;

  @Override
  public void listen(Listener listener) {
    this.listener = listener;
  }

  @Override
  public CompletableFuture<Void> subscribe(String... channels) {
    subscribes.add(channels[0]);
    alongside.addAll(List.of(channels).subList(1, channels.length));
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    pending.put(channels[0], confirmed);
    return confirmed;
  }

  @Override
  public void unsubscribe(String... channels) {
    unsubscribes.add(channels[0]);
  }

  @Override
  public void close() {}

  /** Redis confirms the last SUBSCRIBE of the channel, as Lettuce reports it: listener, future. */
  void confirm(String channel) {
    listener.subscribed(channel);
    pending.remove(channel).complete(null);
  }

  /**
   * Redis confirms the last SUBSCRIBE of the channel, the future completing before the listener.
   */
  void confirmFutureFirst(String channel) {
    pending.remove(channel).complete(null);
    listener.subscribed(channel);
  }

  /** The connection came back and the channel was subscribed again (Lettuce re-subscribes). */
  void resubscribed(String channel) {
    listener.subscribed(channel);
  }

  /** The last SUBSCRIBE of the channel fails. */
  void refuse(String channel, Throwable failure) {
    pending.remove(channel).completeExceptionally(failure);
  }

  /** A message arrives on the channel. */
  void publish(String channel, String message) {
    listener.message(channel, message);
  }
}
