package dev.warden.internal.wait;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.PubSub;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Wakes local waiters when Redis pub/sub reports that an object was released.
 *
 * <p>One pub/sub connection per Warden. All local waiters on one channel share one {@link Topic}
 * and one subscription, taken when the first joins and dropped {@link
 * Settings#SUBSCRIPTION_LINGER_MILLIS} after the last leaves (unless somebody joined again
 * meanwhile). The subscription covers two channels, in one command: the object's shared channel and
 * this client's own channel of the object ({@link #addressed}: the shared one plus {@code :<client
 * id>}), on which scripts publish what concerns this client alone (a lock's nomination of this
 * client, a fair lock's wake-up of its waiter), so that only this client receives it. What a
 * message wakes is its {@link WakeMessage}. A lock release says {@code released <client id>}: the
 * client that released ignores it, because it woke its own waiters when the release returned
 * ({@link #releasedLocally}); {@code released <client id> <nominated client id>} wakes a waiter of
 * the nominated client only (the lock's turn is that client's: lock-release.lua). A confirmed
 * re-subscription wakes every parked waiter (but only the first of each line, whose refusal stands
 * for the rest: {@link Topic#resubscribed}), because messages may have been lost while the
 * connection was down; the first confirmation of a subscription wakes nobody (its waiters try once
 * it is confirmed).
 *
 * <p>Thread-safety: joining and leaving take this object's monitor (and send SUBSCRIBE and
 * UNSUBSCRIBE under it, so they reach Redis in order); listener callbacks run on a Lettuce
 * event-loop thread and only take a topic's short lock and hand work to {@link Waiter#wake()}.
 */
public final class Subscriptions {
  private static final String RELEASED = WakeMessage.released("");
  private static final String GRANTED = "granted ";

  private final PubSub pubSub;
  private final Map<String, Topic> topics = new ConcurrentHashMap<>();
  private final String ownRelease;
  private final String clientId;
  private final String addressSuffix;
  private final Timer timer;
  private final Clock clock;
  private final long lingerNanos;
  private final long recheckNanos;

  /**
   * @param clientId this client's id, which its own lock releases publish
   * @param timer ends the subscriptions nobody rejoined within the linger time, and runs the
   *     topics' shared re-checks
   */
  public Subscriptions(
      PubSub pubSub, String clientId, Timer timer, Clock clock, Settings settings) {
    this.pubSub = pubSub;
    this.ownRelease = WakeMessage.released(clientId);
    this.clientId = clientId;
    this.addressSuffix = ":" + clientId;
    this.timer = timer;
    this.clock = clock;
    this.lingerNanos = settings.subscriptionLingerNanos();
    this.recheckNanos = settings.recheckNanos();
    pubSub.listen(
        new PubSub.Listener() {
          @Override
          public void message(String channel, String message) {
            if (message.startsWith(GRANTED)) {
              granted(channel, message);
              return;
            }
            if (message.startsWith(ownRelease)
                && (message.length() == ownRelease.length()
                    || message.charAt(ownRelease.length()) == ' ')) {
              return; // this client's own release, which woke its waiters when it returned
            }
            if (nominatesAnother(message)) {
              return; // a release that gave another client its turn: nothing to wake here
            }
            Topic topic = topics.get(channel);
            if (topic == null && channel.endsWith(addressSuffix)) {
              topic = topics.get(channel.substring(0, channel.length() - addressSuffix.length()));
            }
            if (topic != null) {
              topic.deliver(WakeMessage.parse(message));
            }
          }

          @Override
          public void subscribed(String channel) {
            // this client's own channel is confirmed with the shared one, on the same connection
            // (and node): the shared channel's confirmation stands for both
            Topic topic = topics.get(channel);
            // The first confirmation of a subscription this client asked for wakes nobody: no
            // message can have been lost before it, and its waiters try once it is confirmed
            // (whether that reaches them before or after this call).
            if (topic != null && !topic.confirming.getAndSet(false)) {
              topic.resubscribed();
            }
          }
        });
  }

  /**
   * Hands a direct grant ({@code granted <token> <acquisition id> <owner id>}, lock-release.lua),
   * published on this client's own channel of the lock, to that lock's topic; a payload of another
   * shape is ignored (no client of this version sends one).
   */
  private void granted(String channel, String message) {
    String[] parts = message.split(" ", 4);
    long token;
    try {
      token = parts.length == 4 ? Long.parseLong(parts[1]) : -1;
    } catch (NumberFormatException notAToken) {
      return;
    }
    if (token < 0) {
      return;
    }
    Topic topic =
        channel.endsWith(addressSuffix)
            ? topics.get(channel.substring(0, channel.length() - addressSuffix.length()))
            : null;
    if (topic != null) {
      topic.granted(token, parts[2], parts[3]);
    }
  }

  /**
   * Whether a payload is a lock release that nominated a client other than this one ({@code
   * released <client id> <nominated client id>}, see lock-release.lua).
   */
  private boolean nominatesAnother(String message) {
    if (!message.startsWith(RELEASED)) {
      return false;
    }
    int space = message.indexOf(' ', RELEASED.length());
    return space >= 0 && !message.substring(space + 1).equals(clientId);
  }

  /**
   * This client's own channel of an object whose shared channel is {@code channel}: what the
   * scripts' {@code addressed(channel, owner)} (prelude.lua) names for an owner of this client.
   */
  public String addressed(String channel) {
    return channel + addressSuffix;
  }

  /**
   * The message this client's lock releases publish: other clients wake one waiter on it, this
   * client ignores it.
   */
  public String ownReleaseMessage() {
    return ownRelease;
  }

  /** Joins the channel's topic, subscribing unless it is subscribed already. */
  public synchronized Topic join(String channel) {
    Topic topic =
        topics.computeIfAbsent(channel, name -> new Topic(name, timer, clock, recheckNanos));
    topic.members++;
    if (topic.subscribed == null || topic.subscribed.isCompletedExceptionally()) {
      topic.confirming.set(true);
      topic.subscribed = pubSub.subscribe(channel, addressed(channel));
    }
    return topic;
  }

  /**
   * Leaves a topic. The last member's leaving keeps the subscription for the linger time: a thread
   * that waits again right away (a contended lock taken in a loop) then finds it in place instead
   * of subscribing anew and trying twice.
   */
  public synchronized void leave(Topic topic) {
    if (--topic.members == 0) {
      try {
        timer.schedule(() -> unsubscribeIfIdle(topic), lingerNanos);
      } catch (RejectedExecutionException closing) {
        topics.remove(topic.channel(), topic); // the Warden is closing, its connection with it
      }
    }
  }

  private synchronized void unsubscribeIfIdle(Topic topic) {
    if (topic.members == 0 && topics.remove(topic.channel(), topic)) {
      pubSub.unsubscribe(topic.channel(), addressed(topic.channel()));
    }
  }

  /**
   * Wakes local waiters of the channel after a release by this client, as the release's message
   * would.
   */
  public void releasedLocally(String channel, WakeMessage wake) {
    Topic topic = topics.get(channel);
    if (topic != null) {
      topic.deliver(wake);
    }
  }

  /**
   * Returns whether a local acquirer other than the member of {@code own} (null if the caller is
   * not a member) waits on the channel: then the object must publish when released.
   */
  public boolean othersWait(String channel, Topic own) {
    Topic topic = topics.get(channel);
    if (topic == null) {
      return false; // the uncontended path: no lock taken
    }
    synchronized (this) {
      return topic.members > (topic == own ? 1 : 0);
    }
  }

  /** The local waiters of a channel now, or null when none waits. */
  public Topic topic(String channel) {
    return topics.get(channel);
  }

  /**
   * Returns the number of channels subscribed to for waiting acquirers now, without those kept a
   * moment longer after their last waiter left (for tests and diagnostics).
   */
  public synchronized int subscriptions() {
    int waitedOn = 0;
    for (Topic topic : topics.values()) {
      if (topic.members > 0) {
        waitedOn++;
      }
    }
    return waitedOn;
  }

  /** Returns the number of waiters parked now, over every channel. */
  public int parked() {
    int parked = 0;
    for (Topic topic : topics.values()) {
      parked += topic.parkedCount();
    }
    return parked;
  }
}
