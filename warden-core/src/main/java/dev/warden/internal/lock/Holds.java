package dev.warden.internal.lock;

import dev.warden.WardenActivity;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.LeaseKeeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This client's one record of who holds what: the {@link Hold} of each owner on each lock, the
 * owner of this client holding each lock whose driver lets local threads wait for it, and (through
 * it alone) the lease keeper's set of renewed holds. Redis stays the authority; this record is what
 * the client knows, kept by the lock layer and asked by the hand-off and the lease keeper.
 *
 * <p>Thread-safety: concurrent maps; a hold's own fields are the owner's (see {@link Hold}).
 */
final class Holds {
  /** A hold's place in the record: the lock's hold key and the owner. */
  private record Key(String lock, String owner) {}

  private final Map<Key, Hold> holds = new ConcurrentHashMap<>();

  /** The owner of this client that holds each lock, by hold key, for locks that track it. */
  private final Map<String, String> holders = new ConcurrentHashMap<>();

  private final LeaseKeeper keeper;
  private final Clock clock;

  /**
   * While a graceful close waits for holders to release: completes with true once no hold is held
   * or being released. Null otherwise, so a release pays one volatile read for it.
   */
  private volatile CompletableFuture<Boolean> released;

  Holds(LeaseKeeper keeper, Clock clock) {
    this.keeper = keeper;
    this.clock = clock;
  }

  /** The owner's hold on the lock, or null. */
  Hold get(String lock, String owner) {
    return holds.get(new Key(lock, owner));
  }

  /**
   * Records a new hold; {@code holder}: the lock tracks its local holder (see {@link #holder}).
   * {@code renewed}: the lease keeper renews it from now on.
   */
  void add(String lock, Hold hold, boolean holder, boolean renewed) {
    holds.put(new Key(lock, hold.owner()), hold);
    if (holder) {
      holders.put(lock, hold.owner());
    }
    if (renewed) {
      keeper.add(hold);
    }
    hold.reportStarted();
  }

  /** Renews a kept hold now, on its own (a direct grant's confirmation). */
  void confirm(Hold hold) {
    keeper.renewNow(hold);
  }

  /** The lease keeper renews the hold from now on (a re-entry without an explicit lease). */
  void renew(Hold hold) {
    if (!hold.renewed()) {
      keeper.add(hold);
    }
  }

  /** The lease keeper stops renewing a hold that stays held (its lease was set explicitly). */
  void stopRenewing(Hold hold) {
    if (hold.renewed()) {
      keeper.stopRenewing(hold);
    }
  }

  /** Forgets a hold that ended: its record, its place as the lock's holder, its renewal. */
  void forget(String lock, Hold hold) {
    boolean removed = holds.remove(new Key(lock, hold.owner()), hold);
    holders.remove(lock, hold.owner());
    if (hold.renewed()) {
      keeper.remove(hold);
    }
    if (removed) {
      hold.reportEnded(clock.nanoTime());
    }
    if (released != null) {
      checkReleased();
    }
  }

  /**
   * Records again a hold that ended and is now known lost (see {@link Hold#lostFor}), so that its
   * owner is told when it next uses it; not renewed, and not reported as a new hold.
   */
  void restoreLost(String lock, Hold hold) {
    holds.put(new Key(lock, hold.owner()), hold);
  }

  /** Stops renewing a hold that is known lost; its record stays, so that its owner is told. */
  void lost(Hold hold) {
    if (hold.renewed()) {
      keeper.remove(hold);
    }
    if (released != null) {
      checkReleased();
    }
  }

  /**
   * Returns a future that completes with true once no hold of this client is held or being released
   * (lost ones do not count), or with false after {@code graceNanos} on the timer: for a graceful
   * close. Released, lost and forgotten holds are noticed as they happen.
   */
  // FutureReturnValueIgnored: each callback only completes the future returned
  @SuppressWarnings("FutureReturnValueIgnored")
  CompletableFuture<Boolean> whenReleased(Timer timer, long graceNanos) {
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    released = done;
    for (Hold hold : holds.values()) {
      hold.lost().thenRun(this::checkReleased); // lost to the lease keeper: it held no more
    }
    checkReleased();
    if (!done.isDone()) {
      Timer.Scheduled deadline = timer.schedule(() -> done.complete(false), graceNanos);
      done.thenRun(deadline::cancel);
    }
    return done;
  }

  /** Ends a wait of {@link #whenReleased} with false: the Warden closes at once. */
  void stopWaiting() {
    CompletableFuture<Boolean> done = released;
    if (done != null) {
      done.complete(false);
    }
  }

  private void checkReleased() {
    CompletableFuture<Boolean> done = released;
    if (done == null || done.isDone()) {
      return;
    }
    for (Hold hold : holds.values()) {
      Hold.State state = hold.state();
      if (state == Hold.State.HELD || state == Hold.State.RELEASING) {
        return;
      }
    }
    done.complete(true);
  }

  /** Every hold recorded now. */
  List<Hold> all() {
    return new ArrayList<>(holds.values());
  }

  /**
   * The owner of this client that holds the lock (set when a hold is recorded or handed over,
   * removed when it ends or is given back), or null. A thread that finds the lock held by another
   * owner here can wait without asking Redis, because that owner's release hands the lock over or
   * wakes this client's waiters.
   */
  String holder(String lock) {
    return holders.get(lock);
  }

  /** The lock was handed to {@code owner}: before its grant, so the releaser finds it held. */
  void handedTo(String lock, String owner) {
    holders.put(lock, owner);
  }

  /** A grant to {@code owner} is being given back unused. */
  void givenBack(String lock, String owner) {
    holders.remove(lock, owner);
  }

  /** Every hold of this client on the lock. */
  List<Hold> on(String lock) {
    List<Hold> on = new ArrayList<>();
    holds.forEach(
        (key, hold) -> {
          if (key.lock().equals(lock)) {
            on.add(hold);
          }
        });
    return on;
  }

  /** Every hold recorded now, oldest first, as {@link WardenActivity} shows it. */
  List<WardenActivity.Hold> activity() {
    long now = clock.nanoTime();
    List<Hold> all = new ArrayList<>(holds.values());
    all.sort(Comparator.comparingLong(hold -> hold.startedNanos() - now));
    List<WardenActivity.Hold> activity = new ArrayList<>(all.size());
    for (Hold hold : all) {
      activity.add(
          new WardenActivity.Hold(
              hold.subject().type(),
              hold.subject().name(),
              hold.owner(),
              hold.token(),
              hold.count(),
              Duration.ofNanos(Math.max(0, now - hold.startedNanos())),
              hold.renewed(),
              hold.state() == Hold.State.LOST));
    }
    return activity;
  }

  /** Returns the number of holds recorded. */
  int size() {
    return holds.size();
  }
}
