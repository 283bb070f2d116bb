package dev.warden.it.model;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Who hears the wake-ups the scripts publish, as the clients of a rolling deploy with a monitoring
 * tool do: client c1 runs the previous version (it subscribes each object's shared channel only),
 * c2 and c3 this one (the shared channel and their own, {@code <channel>:cN}), and a tool
 * subscribes the pattern {@code *}, which PUBLISH counts among a channel's receivers. The invariant
 * <b>told</b>: a wake-up addressed to one client (a nomination {@code released <client> <nominee>},
 * a fair lock's {@code w:<waiter>}) reaches that client, whichever version it runs: on its own
 * channel, or on the shared one when nobody listens on its own.
 *
 * <p>After each step a marker published on {@value #MARKER} (which every connection subscribes)
 * tells when each has received everything published before it.
 */
final class Hearing implements AutoCloseable {
  static final String PREVIOUS = "c1";
  private static final List<String> CLIENTS = List.of(PREVIOUS, "c2", "c3");
  private static final String MARKER = "model:marker";

  private final RedisCommands<String, String> redis;
  private final Map<String, StatefulRedisPubSubConnection<String, String>> connections =
      new LinkedHashMap<>();
  private final Map<String, BlockingQueue<String>> heard = new LinkedHashMap<>();
  private final StatefulRedisPubSubConnection<String, String> monitor;
  private final BlockingQueue<String> seen = new LinkedBlockingQueue<>();
  private final Set<String> shared = new HashSet<>();
  private long markers;

  Hearing(RedisClient client, RedisCommands<String, String> redis) {
    this.redis = redis;
    for (String id : CLIENTS) {
      BlockingQueue<String> queue = new LinkedBlockingQueue<>();
      StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub();
      connection.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              queue.add(channel + " " + message);
            }
          });
      connection.sync().subscribe(MARKER);
      connections.put(id, connection);
      heard.put(id, queue);
    }
    monitor = client.connectPubSub();
    monitor.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String pattern, String channel, String message) {
            seen.add(channel + " " + message);
          }
        });
    monitor.sync().psubscribe("*");
  }

  /** Before a script call: the clients listen on every release channel among its arguments. */
  void before(String... args) {
    for (String arg : args) {
      if (arg.endsWith(":released") && shared.add(arg)) {
        connections.forEach(
            (id, connection) -> {
              if (id.equals(PREVIOUS)) {
                connection.sync().subscribe(arg);
              } else {
                connection.sync().subscribe(arg, arg + ":" + id);
              }
            });
      }
    }
  }

  /**
   * After a step: waits until every connection has heard what the step's scripts published, and
   * throws the first addressed wake-up its client did not hear.
   */
  void check() {
    String marker = MARKER + " " + ++markers;
    redis.publish(MARKER, Long.toString(markers));
    List<String> published = drain(seen, marker, "the monitor");
    Map<String, List<String>> byClient = new LinkedHashMap<>();
    heard.forEach((id, queue) -> byClient.put(id, drain(queue, marker, id)));
    for (String entry : published) {
      int space = entry.indexOf(' ');
      String channel = entry.substring(0, space);
      String message = entry.substring(space + 1);
      String to = addressee(message);
      if (to == null || !byClient.containsKey(to) || !ours(channel)) {
        continue;
      }
      if (byClient.get(to).stream().noneMatch(m -> m.endsWith(" " + message))) {
        throw new Violation(
            "told",
            "'"
                + message
                + "' (published on "
                + channel
                + ") never reached "
                + to
                + (to.equals(PREVIOUS)
                    ? ", a previous version's client (shared channels only)"
                    : "")
                + "; it heard "
                + byClient.get(to));
      }
    }
  }

  /** Drops what an earlier sequence published (a new sequence begins). */
  void reset() {
    String marker = MARKER + " " + ++markers;
    redis.publish(MARKER, Long.toString(markers));
    drain(seen, marker, "the monitor");
    heard.forEach((id, queue) -> drain(queue, marker, id));
  }

  private boolean ours(String channel) {
    int colon = channel.lastIndexOf(':');
    return shared.contains(channel) || (colon > 0 && shared.contains(channel.substring(0, colon)));
  }

  /** The client a wake-up is addressed to, or null when it is for whoever waits. */
  private static String addressee(String message) {
    if (message.startsWith("w:")) {
      int colon = message.indexOf(':', 2);
      return colon < 0 ? null : message.substring(2, colon);
    }
    if (message.startsWith("granted ")) {
      // granted <token> <acquisition id> <owner id>: to the owner's client
      String owner = message.substring(message.lastIndexOf(' ') + 1);
      int colon = owner.indexOf(':');
      return colon < 0 ? null : owner.substring(0, colon);
    }
    if (!message.startsWith("released ")) {
      return null;
    }
    int nominee = message.indexOf(' ', "released ".length());
    return nominee < 0 ? null : message.substring(nominee + 1);
  }

  private static List<String> drain(BlockingQueue<String> queue, String marker, String who) {
    List<String> got = new ArrayList<>();
    try {
      while (true) {
        String next = queue.poll(10, TimeUnit.SECONDS);
        if (next == null) {
          throw new IllegalStateException(who + " did not hear the marker " + marker);
        }
        if (next.equals(marker)) {
          return got;
        }
        got.add(next);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + marker, e);
    }
  }

  @Override
  public void close() {
    connections.values().forEach(StatefulRedisPubSubConnection::close);
    monitor.close();
  }
}
