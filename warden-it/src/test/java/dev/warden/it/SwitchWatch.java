package dev.warden.it;

import static org.awaitility.Awaitility.await;

import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The moments the sentinels announce a failover: listens to {@code +selected-slave} (the leader
 * names the replica it promotes) and {@code +switch-master} on every sentinel of a set and keeps
 * the time of the first of each, for measuring how long Warden takes to follow. Also reads which
 * Warden clients a data node has ({@code CLIENT LIST}).
 */
final class SwitchWatch implements AutoCloseable {
  private final RedisClient client = RedisClient.create();
  private final List<StatefulRedisPubSubConnection<String, String>> connections;
  private final CompletableFuture<Long> switched = new CompletableFuture<>();
  private final CompletableFuture<Long> selected = new CompletableFuture<>();

  SwitchWatch(RedisSentinels sentinels) {
    connections =
        sentinels.sentinelPorts().stream()
            .map(port -> client.connectPubSub(RedisURI.create("127.0.0.1", port)))
            .toList();
    for (StatefulRedisPubSubConnection<String, String> connection : connections) {
      connection.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              long now = System.nanoTime();
              if (channel.equals("+selected-slave")) {
                selected.complete(now);
              } else if (selected.isDone()) {
                switched.complete(now); // not a late announcement of an earlier failover
              }
            }
          });
      connection.sync().subscribe("+switch-master", "+selected-slave");
    }
  }

  /**
   * Returns the {@link System#nanoTime()} of the first {@code +switch-master} after the first
   * {@code +selected-slave}, waiting up to 30 s.
   */
  long switchedAt() throws Exception {
    return switched.get(30, TimeUnit.SECONDS);
  }

  /**
   * Returns the {@link System#nanoTime()} at which the failover leader named the replica it
   * promotes ({@code +selected-slave}), waiting up to 30 s.
   */
  long selectedAt() throws Exception {
    return selected.get(30, TimeUnit.SECONDS);
  }

  /** Milliseconds from the first announcement to {@code nanos}. */
  long millisAfterSwitch(long nanos) throws Exception {
    return TimeUnit.NANOSECONDS.toMillis(nanos - switchedAt());
  }

  /** The number of Warden connections (named {@code warden-...}) the node has now. */
  static long wardenClients(RedisServer server) {
    return server
        .redis()
        .clientList()
        .lines()
        .filter(line -> line.contains(" name=warden-"))
        .count();
  }

  /** The script calls ({@code EVALSHA} and {@code EVAL}) the node has served since its start. */
  static long scriptCalls(RedisServer server) {
    return server.commandCalls().getOrDefault("evalsha", 0L)
        + server.commandCalls().getOrDefault("eval", 0L);
  }

  /**
   * Polls {@code condition} every 5 ms until it holds, for up to {@code timeout}, and returns the
   * {@link System#nanoTime()} at which it held.
   */
  static long awaitNanos(Duration timeout, Callable<Boolean> condition) {
    await().pollInterval(Duration.ofMillis(5)).atMost(timeout).until(condition);
    return System.nanoTime();
  }

  @Override
  public void close() {
    connections.forEach(StatefulRedisPubSubConnection::close);
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
