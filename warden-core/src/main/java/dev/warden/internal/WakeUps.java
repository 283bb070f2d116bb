package dev.warden.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Wakes local waiters when Redis pub/sub reports that an object was released.
 *
 * <p>One pub/sub connection per Warden. All local waiters on one channel share one subscription,
 * taken when the first joins and dropped {@link #LINGER_MILLIS} after the last leaves (unless
 * somebody joined again meanwhile). What a message wakes depends on its payload (see {@link
 * Topic#wake(String)}): by default one parked waiter (the one parked longest), which is what a lock
 * release means; a waiter that then fails to acquire re-marks the lock, so the next release
 * publishes again. {@code all} wakes every parked waiter (a writer left, a latch reached zero);
 * {@code w:<id>} wakes that waiter alone (the fair lock's head, a signalled condition waiter);
 * {@code <n> [<id>]} wakes the named waiter, if parked here, and up to {@code n} others (permits
 * were released). A lock release says {@code released <client id>}: the client that released
 * ignores it, because it woke its own waiters when the release returned. A confirmed
 * (re)subscription wakes every parked waiter, because messages may have been lost while the
 * connection was down.
 *
 * <p>Each topic counts the wake-ups it has seen ({@link Topic#generation()}). A waiter reads the
 * count before each attempt and refuses to park if it changed meanwhile, or if a message named it
 * while it was not parked: a release message that arrives while the failed attempt's reply is still
 * on its way is therefore never lost.
 *
 * <p>Thread-safety: callbacks run on a Lettuce event-loop thread and only take short locks and hand
 * work to {@link Waiter#wake()}, which must not block.
 */
final class WakeUps {
  /** Something parked on a topic until a release or its own timer. */
  interface Waiter {
    /** Called once the waiter was taken off its topic by a wake-up; must not block. */
    void wake();

    /** The id under which a release may wake this waiter alone; null for wake-one order. */
    default String waiterId() {
      return null;
    }
  }

  /** How long a subscription outlives its last waiter. */
  static final long LINGER_MILLIS = 1_000;

  /** A message payload that wakes the waiter of the id that follows, and nobody else. */
  static final String WAKE_ID = "w:";

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final Map<String, Topic> topics = new ConcurrentHashMap<>();
  private final String ownRelease;
  private final ScheduledExecutorService timer;

  /**
   * {@code clientId}: this client's id, which its own lock releases publish; {@code timer} ends the
   * subscriptions nobody rejoined within {@link #LINGER_MILLIS}.
   */
  WakeUps(
      StatefulRedisPubSubConnection<String, String> connection,
      String clientId,
      ScheduledExecutorService timer) {
    this.connection = connection;
    this.ownRelease = "released " + clientId;
    this.timer = timer;
    connection.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            if (message.equals(ownRelease)) {
              return; // this client's own release, which woke its waiters when it returned
            }
            Topic topic = topics.get(channel);
            if (topic != null) {
              topic.wake(message);
            }
          }

          @Override
          public void subscribed(String channel, long count) {
            Topic topic = topics.get(channel);
            if (topic != null) {
              topic.wakeAll();
            }
          }
        });
  }

  /**
   * The message this client's lock releases publish: other clients wake one waiter on it, this
   * client ignores it, having woken its own waiters when the release returned ({@link
   * #releasedLocally}).
   */
  String ownReleaseMessage() {
    return ownRelease;
  }

  /** Joins the channel's topic, subscribing unless it is subscribed already. */
  synchronized Topic join(String channel) {
    Topic topic = topics.computeIfAbsent(channel, Topic::new);
    topic.members++;
    CompletableFuture<Void> subscribed = topic.subscribed;
    if (subscribed == null || subscribed.isCompletedExceptionally()) {
      // Sent under the lock so SUBSCRIBE and UNSUBSCRIBE of one channel reach Redis in order.
      topic.subscribed =
          connection.async().subscribe(channel).toCompletableFuture().thenApply(ignored -> null);
    }
    return topic;
  }

  /**
   * Leaves a topic. The last member's leaving keeps the subscription for {@link #LINGER_MILLIS}
   * more: a thread that waits again right away (a contended lock taken in a loop) then finds it in
   * place instead of subscribing anew and trying twice.
   */
  // FutureReturnValueIgnored: the timer's future is not needed: a close before it runs is handled below
  @SuppressWarnings("FutureReturnValueIgnored")
  synchronized void leave(Topic topic) {
    if (--topic.members == 0) {
      try {
        timer.schedule(() -> unsubscribeIfIdle(topic), LINGER_MILLIS, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        topics.remove(topic.channel, topic); // the Warden is closing, and its connection with it
      }
    }
  }

  // FutureReturnValueIgnored: fire and forget: a failed unsubscribe only leaves an idle subscription
  @SuppressWarnings("FutureReturnValueIgnored")
  private synchronized void unsubscribeIfIdle(Topic topic) {
    if (topic.members == 0 && topics.remove(topic.channel, topic)) {
      connection.async().unsubscribe(topic.channel);
    }
  }

  /**
   * Wakes local waiters of the channel after a release by this client, as the release's message
   * will: {@code wake} is {@link LockDriver#WAKE_ONE}, {@link LockDriver#WAKE_ALL}, a waiter id, or
   * {@link LockDriver#WAKE_NONE} when the lock went straight to a local waiter.
   */
  void releasedLocally(String channel, String wake) {
    Topic topic = topics.get(channel);
    if (topic == null) {
      return;
    }
    if (LockDriver.WAKE_NONE.equals(wake)) {
      return;
    }
    if (wake == null || wake.equals(LockDriver.WAKE_ONE)) {
      topic.wakeOne();
    } else if (wake.equals(LockDriver.WAKE_ALL)) {
      topic.wakeAll();
    } else {
      topic.wakeWaiter(wake);
    }
  }

  /**
   * Returns whether a local acquirer other than the member of {@code own} (null if the caller is
   * not a member) waits on the channel: then the lock must publish when released.
   */
  boolean othersWait(String channel, Topic own) {
    Topic topic = topics.get(channel);
    if (topic == null) {
      return false; // the uncontended path: no lock taken
    }
    synchronized (this) {
      return topic.members > (topic == own ? 1 : 0);
    }
  }

  /** The local waiters of a channel now, or null when none waits. */
  Topic topic(String channel) {
    return topics.get(channel);
  }

  /**
   * Returns the number of channels subscribed to for waiting acquirers now, without those kept a
   * moment longer after their last waiter left (for tests and diagnostics).
   */
  synchronized int subscriptions() {
    int waitedOn = 0;
    for (Topic topic : topics.values()) {
      if (topic.members > 0) {
        waitedOn++;
      }
    }
    return waitedOn;
  }

  /** Returns the number of waiters parked now, over every channel. */
  int parked() {
    int parked = 0;
    for (Topic topic : topics.values()) {
      synchronized (topic.parked) {
        parked += topic.parked.size();
      }
    }
    return parked;
  }

  void close() {
    connection.close();
  }

  /** The local waiters of one channel. */
  static final class Topic {
    private static final int MISSED_LIMIT = 1024;

    private final String channel;
    private final AtomicLong generation = new AtomicLong();
    private final LinkedHashSet<Waiter> parked = new LinkedHashSet<>(); // guarded by itself

    /** Ids woken while not parked (their attempt was in flight): they must not park next. */
    private final Set<String> missed = new LinkedHashSet<>(); // guarded by parked

    private int members; // guarded by WakeUps.this
    private int handOffs; // guarded by parked; hand-offs in a row while others wait
    private boolean othersWait; // guarded by parked; as the last hand-off found
    private volatile CompletableFuture<Void> subscribed;

    Topic(String channel) {
      this.channel = channel;
    }

    String channel() {
      return channel;
    }

    /** Completes when Redis confirmed the subscription. */
    CompletableFuture<Void> subscribed() {
      return subscribed;
    }

    /** Returns the number of wake-ups seen so far. */
    long generation() {
      return generation.get();
    }

    /**
     * Parks the waiter unless a wake-up arrived since {@code seenGeneration}; returns whether it
     * parked (if not, the caller should try again at once).
     */
    boolean park(Waiter waiter, long seenGeneration) {
      synchronized (parked) {
        String id = waiter.waiterId();
        boolean named = id != null && missed.remove(id);
        if (named || generation.get() != seenGeneration) {
          return false;
        }
        parked.add(waiter);
        return true;
      }
    }

    /**
     * Wakes as a message payload says: {@code all} every parked waiter; {@code w:<id>} that waiter
     * alone; {@code <n>} up to {@code n} waiters, those parked longest; {@code <n> <id>} the waiter
     * of that id first, if it is parked here, and then up to {@code n} others; anything else (a
     * lock's {@code released}) one waiter.
     */
    void wake(String message) {
      if (message.startsWith(WAKE_ID)) {
        wakeWaiter(message.substring(WAKE_ID.length()));
        return;
      }
      if (message.equals(LockDriver.WAKE_ALL)) {
        wakeAll();
        return;
      }
      int space = message.indexOf(' ');
      String count = space < 0 ? message : message.substring(0, space);
      if (count.isEmpty() || !count.chars().allMatch(Character::isDigit)) {
        wakeOne();
        return;
      }
      int others = count.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(count);
      wake(others, space < 0 ? null : message.substring(space + 1));
    }

    /** Wakes the waiter with that id only; remembers the wake-up if it is not parked now. */
    void wakeWaiter(String id) {
      Waiter target = null;
      synchronized (parked) {
        for (Waiter waiter : parked) {
          if (id.equals(waiter.waiterId())) {
            target = waiter;
            break;
          }
        }
        if (target != null) {
          parked.remove(target);
        } else {
          missed.add(id);
          if (missed.size() > MISSED_LIMIT) { // ids of waiters long gone: forget the oldest
            Iterator<String> oldest = missed.iterator();
            oldest.next();
            oldest.remove();
          }
        }
      }
      if (target != null) {
        target.wake();
      }
    }

    /** Takes the waiter off the topic; returns false if a wake-up took it first. */
    boolean unpark(Waiter waiter) {
      synchronized (parked) {
        return parked.remove(waiter);
      }
    }

    /**
     * Whether a release may hand the lock to a waiter of this client: always, unless the last
     * hand-off found waiters of other clients (or of other kinds) and {@code max} hand-offs were
     * made in a row since; then returns false once and starts a new row, so that a real release
     * gives them their chance.
     */
    boolean mayHandOff(int max) {
      synchronized (parked) {
        if (!othersWait || handOffs < max) {
          return true;
        }
        handOffs = 0;
        return false;
      }
    }

    /**
     * Records a hand-off made, and whether Redis said that others (which a hand-off cannot reach)
     * wait for the lock: only then do hand-offs in a row count.
     */
    void handedOff(boolean othersWait) {
      synchronized (parked) {
        this.othersWait = othersWait;
        handOffs = othersWait ? handOffs + 1 : 0;
      }
    }

    /**
     * Takes the longest-parked waiter that {@code wanted} accepts off the topic and returns it (its
     * wake-up is now the caller's to give), or null when none is parked.
     */
    Waiter claim(Predicate<Waiter> wanted) {
      return claim(wanted, (unusedA, unusedB) -> 0); // all equal: the longest-parked wins
    }

    /**
     * Takes the first in {@code order} of the parked waiters that {@code wanted} accepts (the
     * longest-parked among equals) off the topic and returns it, or null when none is parked.
     */
    Waiter claim(Predicate<Waiter> wanted, Comparator<Waiter> order) {
      synchronized (parked) {
        Waiter best = null;
        for (Waiter waiter : parked) {
          if (wanted.test(waiter) && (best == null || order.compare(waiter, best) < 0)) {
            best = waiter;
          }
        }
        if (best != null) {
          parked.remove(best);
        }
        return best;
      }
    }

    /**
     * Parks a waiter that {@link #claim} took again, unless a wake-up it would have had arrived
     * since {@code claimedAtGeneration} or named it meanwhile, or {@code stillDue} says its own
     * timer is gone; returns whether it is parked (if not, the caller wakes it). {@code stillDue}
     * is asked under the topic's lock, which the waiter's timer also takes to unpark it.
     */
    boolean restore(Waiter waiter, long claimedAtGeneration, BooleanSupplier stillDue) {
      synchronized (parked) {
        String id = waiter.waiterId();
        boolean named = id != null && missed.remove(id);
        if (named || generation.get() != claimedAtGeneration || !stillDue.getAsBoolean()) {
          return false;
        }
        parked.add(waiter);
        return true;
      }
    }

    void wakeOne() {
      wake(1, null);
    }

    void wakeAll() {
      wake(Integer.MAX_VALUE, null);
    }

    /**
     * Wakes the waiter of id {@code named} (if parked; null: none) and up to {@code count} more.
     */
    void wake(int count, String named) {
      List<Waiter> woken = new ArrayList<>();
      synchronized (parked) {
        generation.incrementAndGet();
        if (named != null) {
          for (Iterator<Waiter> it = parked.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (named.equals(waiter.waiterId())) {
              it.remove();
              woken.add(waiter);
              break;
            }
          }
        }
        Iterator<Waiter> oldest = parked.iterator();
        for (int others = 0; others < count && oldest.hasNext(); others++) {
          woken.add(oldest.next());
          oldest.remove();
        }
      }
      woken.forEach(Waiter::wake);
    }
  }
}
