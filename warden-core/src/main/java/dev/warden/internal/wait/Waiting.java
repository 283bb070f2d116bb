package dev.warden.internal.wait;

import dev.warden.WardenActivity;
import dev.warden.WardenException;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an {@link Acquisition} needs and nothing more: the settings, the clock, the timer, the
 * wake-ups, and the set of acquisitions in progress (failed when the Warden closes).
 */
public final class Waiting {
  private final Settings settings;
  private final Clock clock;
  private final Timer timer;
  private final Subscriptions subscriptions;
  private final Events events;
  private final Set<Acquisition<?>> pending = ConcurrentHashMap.newKeySet();
  private final AtomicLong order = new AtomicLong();
  private volatile boolean closed;
  private volatile String
      draining; // why new acquisitions (re-entries apart) fail; null: they don't

  public Waiting(
      Settings settings, Clock clock, Timer timer, Subscriptions subscriptions, Events events) {
    this.settings = settings;
    this.events = events;
    this.clock = clock;
    this.timer = timer;
    this.subscriptions = subscriptions;
  }

  public Settings settings() {
    return settings;
  }

  public Clock clock() {
    return clock;
  }

  public Timer timer() {
    return timer;
  }

  public Subscriptions subscriptions() {
    return subscriptions;
  }

  /** Where acquisitions and holds report what they do. */
  public Events events() {
    return events;
  }

  /** The acquisitions in progress that name their object, longest waiting first. */
  public List<WardenActivity.Waiter> activity() {
    long now = clock.nanoTime();
    List<Reporting> all = new ArrayList<>();
    for (Acquisition<?> acquisition : pending) {
      all.add(acquisition.reporting);
    }
    all.sort(Comparator.comparingLong(reporting -> reporting.startedNanos() - now));
    List<WardenActivity.Waiter> activity = new ArrayList<>(all.size());
    for (Reporting reporting : all) {
      WardenActivity.Waiter waiter = reporting.waiter(now);
      if (waiter != null) {
        activity.add(waiter);
      }
    }
    return activity;
  }

  /** Returns the number of acquisitions in progress. */
  public int pending() {
    return pending.size();
  }

  /**
   * The next acquisition to wait gets this place in its topics' order (see {@link Waiter#order}).
   */
  long nextOrder() {
    return order.getAndIncrement();
  }

  /** Fails every acquisition in progress, and every one started from now on. */
  public void close() {
    closed = true;
    for (Acquisition<?> acquisition : pending) {
      acquisition.fail(new WardenException("the Warden was closed while this call waited"));
    }
  }

  /**
   * Fails every acquisition in progress, and every one started from now on, except re-entries of a
   * hold the owner has (they wait for nothing, and let holders finish their work): for a graceful
   * close. Each fails with a {@link WardenException} naming its object and {@code why}; one that
   * waited gives back what its attempts may have taken and leaves its queue first.
   */
  public void drain(String why) {
    draining = why;
    for (Acquisition<?> acquisition : pending) {
      if (!acquisition.reentry()) {
        acquisition.end(why);
      }
    }
  }

  void register(Acquisition<?> acquisition) {
    pending.add(acquisition);
    String why = draining;
    if (closed) {
      acquisition.fail(new WardenException("the Warden is closed"));
    } else if (why != null && !acquisition.reentry()) {
      acquisition.fail(acquisition.failure(why));
    }
  }

  void unregister(Acquisition<?> acquisition) {
    pending.remove(acquisition);
  }
}
