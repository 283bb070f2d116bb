package dev.warden.internal.wait;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The local waiters of one channel, parked until a wake-up ({@link WakeMessage}) or their own
 * timer.
 *
 * <p>Each topic counts the wake-ups it has seen ({@link #generation()}). A waiter reads the count
 * before each attempt and refuses to park if it changed meanwhile, or if a message named it while
 * it was not parked: a release message that arrives while the failed attempt's reply is still on
 * its way is therefore never lost.
 *
 * <p>Thread-safety: parking and waking take the {@code parked} monitor, briefly; {@link
 * Waiter#wake()} is always called with no monitor held. Membership ({@code members}) belongs to
 * {@link Subscriptions} and is guarded by it.
 */
public final class Topic {
  private static final int MISSED_LIMIT = 1024;

  private final String channel;
  private final AtomicLong generation = new AtomicLong();
  private final LinkedHashSet<Waiter> parked = new LinkedHashSet<>(); // guarded by itself

  /** Ids woken while not parked (their attempt was in flight): they must not park next. */
  private final Set<String> missed = new LinkedHashSet<>(); // guarded by parked

  int members; // guarded by the Subscriptions that owns this topic
  volatile CompletableFuture<Void> subscribed;

  Topic(String channel) {
    this.channel = channel;
  }

  /** The channel whose wake-ups this topic delivers. */
  public String channel() {
    return channel;
  }

  /** Completes when Redis confirmed the subscription; null before the first join. */
  public CompletableFuture<Void> subscribed() {
    return subscribed;
  }

  /** Whether Redis has confirmed the subscription (and it did not fail). */
  boolean isSubscribed() {
    CompletableFuture<Void> confirmed = subscribed;
    return confirmed != null && confirmed.isDone() && !confirmed.isCompletedExceptionally();
  }

  /** Returns the number of wake-ups seen so far. */
  public long generation() {
    return generation.get();
  }

  /** Returns the number of waiters parked now. */
  int parkedCount() {
    synchronized (parked) {
      return parked.size();
    }
  }

  /**
   * Parks the waiter unless a wake-up arrived since {@code seenGeneration}; returns whether it
   * parked (if not, the caller should try again at once).
   */
  boolean park(Waiter waiter, long seenGeneration) {
    return restore(waiter, seenGeneration, () -> true);
  }

  /** Wakes the waiters a message names. */
  void deliver(WakeMessage message) {
    message.deliver(this);
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
   * Takes off the topic the first in {@code order} (the longest-parked among equals) of the parked
   * waiters that take a hand-off and that {@code wanted} accepts, and returns it: its wake-up is
   * now the caller's to give. Returns null when none is parked.
   */
  public Successor claim(Predicate<Successor> wanted, Comparator<Successor> order) {
    synchronized (parked) {
      Waiter best = null;
      Successor bestSuccessor = null;
      for (Waiter waiter : parked) {
        Successor successor = waiter.successor();
        if (successor != null
            && wanted.test(successor)
            && (best == null || order.compare(successor, bestSuccessor) < 0)) {
          best = waiter;
          bestSuccessor = successor;
        }
      }
      if (best == null) {
        return null;
      }
      parked.remove(best);
      return bestSuccessor;
    }
  }

  /**
   * Parks a waiter unless a wake-up it would have had arrived since {@code seenGeneration} or named
   * it meanwhile, or {@code stillDue} says its own timer is gone; returns whether it is parked (if
   * not, the caller wakes it). {@code stillDue} is asked under the topic's lock, which the waiter's
   * timer also takes to unpark it.
   */
  boolean restore(Waiter waiter, long seenGeneration, BooleanSupplier stillDue) {
    synchronized (parked) {
      String id = waiter.waiterId();
      boolean named = id != null && missed.remove(id);
      if (named || generation.get() != seenGeneration || !stillDue.getAsBoolean()) {
        return false;
      }
      parked.add(waiter);
      return true;
    }
  }

  /** Wakes the longest-parked waiter. */
  void wakeOne() {
    wake(1, null);
  }

  /** Wakes every parked waiter. */
  void wakeAll() {
    wake(Integer.MAX_VALUE, null);
  }

  /** Wakes the waiter of id {@code named} (if parked; null: none) and up to {@code count} more. */
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
