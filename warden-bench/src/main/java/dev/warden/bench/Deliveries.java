package dev.warden.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the pub/sub messages Redis delivers to a trial's clients in its window: a pattern
 * subscriber ({@code PSUBSCRIBE *}) counts what is published on each channel whose name contains
 * the trial's key prefix while the window is open, and at its close {@code PUBSUB NUMSUB} tells how
 * many clients each of those channels reaches. Deliveries are the sum over channels of messages
 * times subscribers: the messages Redis wrote to clients, most of which a client drops when a
 * release wakes every client rather than the one whose turn it is.
 *
 * <p>The counter's own subscription adds one delivery per message to Redis's work (not counted); a
 * pattern subscriber is not counted by {@code NUMSUB}. One server only: a cluster's sharded
 * channels ({@code SPUBLISH}) are not seen. Thread-safe; the runner's thread opens and closes it, a
 * Lettuce thread counts.
 */
final class Deliveries implements AutoCloseable {
  private final RedisClient client;
  private final StatefulRedisPubSubConnection<String, String> subscriber;
  private final StatefulRedisConnection<String, String> commands;
  private final String prefix;
  private final Map<String, LongAdder> messages = new ConcurrentHashMap<>();
  private volatile boolean open;
  private long deliveries = -1;
  private long published = -1;

  private Deliveries(RedisClient client, String prefix) {
    this.client = client;
    this.prefix = prefix;
    this.subscriber = client.connectPubSub();
    this.commands = client.connect();
  }

  /** Subscribes on the Redis at {@code uri} to everything published on the trial's channels. */
  static Deliveries watch(String uri, String prefix) {
    RedisClient client = RedisClient.create(uri);
    try {
      Deliveries deliveries = new Deliveries(client, prefix);
      deliveries.subscriber.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
              if (deliveries.open && channel.contains(prefix)) {
                deliveries.messages.computeIfAbsent(channel, c -> new LongAdder()).increment();
              }
            }
          });
      deliveries.subscriber.sync().psubscribe("*");
      return deliveries;
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw e;
    }
  }

  /** Returns the messages counted so far in the open window. */
  long messages() {
    return messages.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Starts counting. */
  void open() {
    open = true;
  }

  /** Stops counting and asks Redis how many clients each channel counted reaches. */
  void closeWindow() {
    if (!open) {
      return;
    }
    open = false;
    long sent = 0;
    long delivered = 0;
    for (Map.Entry<String, LongAdder> entry : messages.entrySet()) {
      long count = entry.getValue().sum();
      Long subscribers = commands.sync().pubsubNumsub(entry.getKey()).get(entry.getKey());
      sent += count;
      delivered += count * (subscribers == null ? 0 : subscribers);
    }
    published = sent;
    deliveries = delivered;
  }

  /** Adds {@code publishes} and {@code deliveries} to a trial's tally, once it has closed. */
  void addTo(Tally tally) {
    if (deliveries >= 0) {
      tally.set("publishes", published);
      tally.set("deliveries", deliveries);
    }
  }

  @Override
  public void close() {
    try {
      subscriber.close();
      commands.close();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Override
  public String toString() {
    return "Deliveries[" + prefix + ", " + messages.size() + " channels]";
  }
}
