package dev.warden.internal.redis;

import java.util.concurrent.CompletableFuture;

/**
 * Subscriptions to release channels, behind one interface whatever the deployment: one server's
 * SUBSCRIBE, or a cluster's sharded SSUBSCRIBE on the channel's slot.
 *
 * <p>Listener calls arrive on a Lettuce event-loop thread and must not block.
 */
public interface PubSub {
  /** Receives what the subscribed channels carry. */
  interface Listener {
    /** A message arrived on a subscribed channel. */
    void message(String channel, String message);

    /**
     * The server confirmed a subscription, the first time or after a reconnect: messages may have
     * been lost meanwhile.
     */
    void subscribed(String channel);
  }

  /** Sets the one listener; called once, before any subscription. */
  void listen(Listener listener);

  /**
   * Subscribes to channels of one object (they share its hash tag), in one command where the
   * deployment allows; completes when the server confirmed every one.
   */
  CompletableFuture<Void> subscribe(String... channels);

  /** Unsubscribes from channels of one object, without waiting for the confirmation. */
  void unsubscribe(String... channels);

  /** Closes the connection. */
  void close();
}
