package dev.warden.internal.redis.sentinel;

import dev.warden.internal.base.Clock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Asks the sentinels of one master where it is, and hears them announce a new one. Keeps a command
 * and a pub/sub connection to every sentinel it can reach (those unreachable are tried again at
 * each {@link #ask()}); the pub/sub connections listen to {@code +switch-master}, {@code
 * +selected-slave} and {@code +new-epoch}, and tell the {@link Events} given to {@link #listen}.
 *
 * <p>Thread-safety: {@link #ask()} and {@link #connectMissing()} run on one thread at a time (the
 * caller's during start-up, then {@link SentinelDeployment}'s watcher thread); the {@link Events}
 * are called on a Lettuce event-loop thread and must only hand work over. {@link #close()} may run
 * on any thread, once the asking has stopped.
 */
final class SentinelWatcher {
  /**
   * The channel on which a sentinel announces a new master: {@code <name> <old ip> <old port> <new
   * ip> <new port>}.
   */
  static final String SWITCH_MASTER = "+switch-master";

  /**
   * The channel on which the sentinel leading a failover names the replica it is about to promote
   * ({@code REPLICAOF NO ONE} follows within a tick, about 100 ms): {@code slave <ip:port> <ip>
   * <port> @ <name> <master ip> <master port>}. The switch is announced only about a second later,
   * after the replica reported its new role and the others were pointed at it.
   */
  static final String SELECTED_REPLICA = "+selected-slave";

  /** The channel on which a sentinel announces a new epoch (one of any failover it starts). */
  static final String NEW_EPOCH = "+new-epoch";

  /** What the sentinels' announcements ask of the deployment; called on an event-loop thread. */
  interface Events {
    /** A sentinel announced a new master: ask the sentinels again. */
    void switched();

    /** The failover leader is about to promote the replica at {@code host:port} of that master. */
    void selected(String host, int port, String masterHost, int masterPort);
  }

  /** What the sentinels say of the master: its address and the configuration epoch. */
  record Answer(String host, int port, long epoch) {
    @Override
    public String toString() {
      return host + ":" + port + " (config epoch " + epoch + ")";
    }
  }

  private final RedisClient client;
  private final String masterName;
  private final List<Sentinel> sentinels = new ArrayList<>();
  private final Duration timeout;
  private final Clock clock;
  private final AtomicLong announcedEpoch = new AtomicLong();
  private volatile Events events;

  SentinelWatcher(RedisClient client, RedisURI uri, Duration timeout, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.masterName = uri.getSentinelMasterId();
    this.timeout = timeout;
    for (RedisURI sentinel : uri.getSentinels()) {
      sentinels.add(new Sentinel(sentinel));
    }
  }

  /**
   * The sentinels' addresses, without credentials, e.g. {@code "127.0.0.1:26379,127.0.0.1:26380"}.
   */
  String addresses() {
    List<String> addresses = new ArrayList<>();
    for (Sentinel sentinel : sentinels) {
      addresses.add(sentinel.address());
    }
    return String.join(",", addresses);
  }

  /**
   * Sets what hears the sentinels' announcements (on an event-loop thread); before {@link #ask}.
   */
  void listen(Events events) {
    this.events = events;
  }

  /** The highest epoch a sentinel announced ({@code +new-epoch}) since this watcher started. */
  long announcedEpoch() {
    return announcedEpoch.get();
  }

  private void heard(String channel, String message) {
    Events target = events;
    String[] words = message.split(" ", -1);
    try {
      switch (channel) {
        case NEW_EPOCH -> announcedEpoch.accumulateAndGet(Long.parseLong(words[0]), Math::max);
        case SWITCH_MASTER -> {
          if (words[0].equals(masterName) && target != null) {
            target.switched();
          }
        }
        case SELECTED_REPLICA -> {
          if (words.length >= 8 && words[5].equals(masterName) && target != null) {
            target.selected(
                words[2], Integer.parseInt(words[3]), words[6], Integer.parseInt(words[7]));
          }
        }
        default -> {}
      }
    } catch (RuntimeException e) {
      // a message in an unexpected shape: the periodic poll still finds the master
    }
  }

  /** Connects to every sentinel not connected yet; failures leave it for the next attempt. */
  void connectMissing() {
    for (Sentinel sentinel : sentinels) {
      sentinel.connect();
    }
  }

  /**
   * Asks every connected sentinel for the master ({@code SENTINEL MASTER <name>}) and returns the
   * answer with the highest configuration epoch among those not in the middle of a failover. Blocks
   * for up to the timeout.
   *
   * @throws RedisException if no sentinel answered: the message names the master, the sentinels and
   *     the last failure, never a password
   */
  Answer ask() {
    connectMissing();
    List<CompletableFuture<Map<String, String>>> replies = new ArrayList<>();
    for (Sentinel sentinel : sentinels) {
      replies.add(sentinel.askMaster(masterName));
    }
    long deadline = clock.nanoTime() + timeout.toNanos();
    Answer best = null;
    Throwable last = null;
    for (CompletableFuture<Map<String, String>> reply : replies) {
      try {
        Map<String, String> state =
            reply.get(Math.max(0, deadline - clock.nanoTime()), TimeUnit.NANOSECONDS);
        if (String.valueOf(state.get("flags")).contains("failover_in_progress")) {
          continue; // the address may be the one being demoted: wait for the switch
        }
        Answer answer =
            new Answer(
                state.get("ip"),
                Integer.parseInt(state.get("port")),
                Long.parseLong(state.getOrDefault("config-epoch", "0")));
        if (best == null || answer.epoch() > best.epoch()) {
          best = answer;
        }
      } catch (ExecutionException e) {
        last = e.getCause();
      } catch (TimeoutException | RuntimeException e) {
        last = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RedisException("interrupted while asking the sentinels", e);
      }
    }
    if (best == null) {
      throw new RedisException(
          "no sentinel at "
              + addresses()
              + " names a master '"
              + masterName
              + "'"
              + (last == null ? " (a failover is in progress)" : ": " + last.getMessage()),
          last);
    }
    return best;
  }

  /** Closes every sentinel connection. */
  void close() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (Sentinel sentinel : sentinels) {
      closing.add(sentinel.closeAsync());
    }
    try {
      CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
          .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // closing anyway: the client's shutdown ends what is left
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One sentinel: a command connection for questions, a pub/sub connection for announcements. */
  private final class Sentinel {
    private final RedisURI uri;
    private volatile StatefulRedisSentinelConnection<String, String> commands;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private volatile RedisException failure;

    Sentinel(RedisURI uri) {
      this.uri = uri;
    }

    String address() {
      return uri.getHost() + ":" + uri.getPort();
    }

    void connect() {
      try {
        if (commands == null) {
          commands = client.connectSentinel(StringCodec.UTF8, uri);
        }
        if (pubSub == null) {
          pubSub = listenTo(client.connectPubSub(StringCodec.UTF8, uri));
        }
      } catch (RedisException e) {
        // unreachable now: tried again at the next attempt; ask() reports it if none answers
        failure = e;
      }
    }

    private StatefulRedisPubSubConnection<String, String> listenTo(
        StatefulRedisPubSubConnection<String, String> connection) {
      try {
        connection.addListener(
            new RedisPubSubAdapter<>() {
              @Override
              public void message(String channel, String message) {
                heard(channel, message);
              }
            });
        connection.sync().subscribe(SWITCH_MASTER, SELECTED_REPLICA, NEW_EPOCH);
        return connection;
      } catch (RedisException e) {
        connection.close();
        throw e;
      }
    }

    CompletableFuture<Map<String, String>> askMaster(String name) {
      StatefulRedisSentinelConnection<String, String> connection = commands;
      if (connection == null) {
        RedisException last = failure;
        return CompletableFuture.failedFuture(
            new RedisException(
                "cannot connect to the sentinel at "
                    + address()
                    + (last == null ? "" : ": " + last.getMessage()),
                last));
      }
      return connection.async().master(name).toCompletableFuture();
    }

    CompletableFuture<Void> closeAsync() {
      List<CompletableFuture<Void>> closing = new ArrayList<>();
      if (commands != null) {
        closing.add(commands.closeAsync());
      }
      if (pubSub != null) {
        closing.add(pubSub.closeAsync());
      }
      return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }
  }
}
