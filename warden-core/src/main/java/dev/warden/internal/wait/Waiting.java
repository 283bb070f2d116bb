package dev.warden.internal.wait;

import dev.warden.WardenException;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an {@link Acquisition} needs and nothing more: the settings, the clock, the timer, the
 * wake-ups, and the set of acquisitions in progress (failed when the Warden closes).
 */
public final class Waiting {
  private final Settings settings;
  private final Clock clock;
  private final Timer timer;
  private final Subscriptions subscriptions;
  private final Set<Acquisition<?>> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public Waiting(Settings settings, Clock clock, Timer timer, Subscriptions subscriptions) {
    this.settings = settings;
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

  /** Returns the number of acquisitions in progress. */
  public int pending() {
    return pending.size();
  }

  /** Fails every acquisition in progress, and every one started from now on. */
  public void close() {
    closed = true;
    for (Acquisition<?> acquisition : pending) {
      acquisition.fail(new WardenException("the Warden was closed while this call waited"));
    }
  }

  void register(Acquisition<?> acquisition) {
    pending.add(acquisition);
    if (closed) {
      acquisition.fail(new WardenException("the Warden is closed"));
    }
  }

  void unregister(Acquisition<?> acquisition) {
    pending.remove(acquisition);
  }
}
