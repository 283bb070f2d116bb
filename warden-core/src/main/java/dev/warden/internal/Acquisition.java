package dev.warden.internal;

import dev.warden.WardenException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to take a lock, waiting if needed: an asynchronous state machine driven by script
 * replies (Lettuce event loop), release messages ({@link WakeUps}) and timers (the Warden's timer
 * thread). Nothing in it blocks.
 *
 * <p>It tries once; if the lock is held, it joins the lock's topic, tries again once the
 * subscription is confirmed (a release between the first try and the subscription would otherwise
 * go unseen), then parks until a release message, its re-check timer (the recheck interval, or the
 * holder's remaining lease if shorter) or the deadline. Transient Redis failures are retried until
 * they have lasted the command timeout. A timed acquisition also has a verdict timer at the
 * deadline plus a margin, so it completes on time even when Redis does not answer at all.
 *
 * <p>{@link #result} completes with the grant, with {@code null} when the wait ran out, or
 * exceptionally. Whoever cancels it owns nothing; a grant that arrives after cancellation is
 * released here.
 */
final class Acquisition implements WakeUps.Waiter {
  private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

  /** A successful acquisition: the hold's token and the owner's hold count in Redis. */
  record Granted(long token, int holdCount, long sentAtNanos) {}

  final CompletableFuture<Granted> result = new CompletableFuture<>();
  private final WardenRuntime runtime;
  private final LockKeys keys;
  private final String owner;
  private final int heldBefore;
  private final long leaseMillis;
  private final boolean timed;
  private final long deadline;
  private WakeUps.Topic topic; // guarded by this
  private ScheduledFuture<?> recheck; // guarded by this
  private ScheduledFuture<?> verdict; // guarded by this
  private long failingSince; // guarded by this; valid while failing
  private boolean failing; // guarded by this

  /**
   * @param waitNanos how long to wait; negative means forever
   */
  Acquisition(
      WardenRuntime runtime,
      LockKeys keys,
      String owner,
      int heldBefore,
      long leaseMillis,
      long waitNanos) {
    this.runtime = runtime;
    this.keys = keys;
    this.owner = owner;
    this.heldBefore = heldBefore;
    this.leaseMillis = leaseMillis;
    this.timed = waitNanos >= 0;
    this.deadline = System.nanoTime() + (timed ? Math.min(waitNanos, Long.MAX_VALUE / 4) : 0);
  }

  Acquisition start() {
    runtime.register(this);
    result.whenComplete((granted, failure) -> cleanUp());
    if (timed) {
      long margin = runtime.verdictMarginNanos();
      synchronized (this) {
        verdict =
            runtime
                .timer()
                .schedule(
                    this::verdictOverdue,
                    deadline - System.nanoTime() + margin,
                    TimeUnit.NANOSECONDS);
      }
    }
    attempt();
    return this;
  }

  /**
   * Abandons the acquisition (the caller was interrupted or gave up). Returns the grant if it had
   * already been made, which the caller must then release; otherwise nothing is held.
   */
  Granted abandon() {
    if (result.cancel(false)) {
      return null;
    }
    return result.isCompletedExceptionally() ? null : result.getNow(null);
  }

  /** Fails the acquisition from outside, e.g. when the Warden closes. */
  void fail(WardenException failure) {
    result.completeExceptionally(failure);
  }

  @Override
  public void wake() {
    synchronized (this) {
      if (recheck != null) {
        recheck.cancel(false);
        recheck = null;
      }
    }
    if (result.isDone()) {
      // this waiter was given a release it will not use: pass it on to the next local waiter
      runtime.wakeUps().releasedLocally(keys.channel());
      return;
    }
    attempt();
  }

  private void attempt() {
    long generation;
    boolean othersWait;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      generation = topic == null ? -1 : topic.generation();
      othersWait = runtime.wakeUps().othersWait(keys.channel(), topic);
    }
    long sentAt = System.nanoTime();
    runtime
        .mutexCommands()
        .acquire(keys, owner, heldBefore, leaseMillis, othersWait)
        .whenComplete(
            (reply, failure) -> {
              if (failure != null) {
                retryOrFail(failure, sentAt);
              } else if (reply.acquired()) {
                granted(new Granted(reply.token(), reply.holdCount(), sentAt));
              } else {
                heldByAnother(reply.ttlMillis(), generation);
              }
            });
  }

  private void granted(Granted granted) {
    if (!result.complete(granted)) {
      // cancelled or failed meanwhile: nobody will use this hold
      runtime
          .mutexCommands()
          .release(keys, owner, granted.holdCount())
          .whenComplete(
              (released, failure) -> {
                if (failure != null) {
                  log.warn(
                      "{}: could not release an abandoned acquisition; it expires with its lease",
                      keys.describe(),
                      failure);
                }
              });
    }
  }

  private void heldByAnother(long ttlMillis, long generation) {
    WakeUps.Topic joined = null;
    boolean parked;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      failing = false;
      long left = deadline - System.nanoTime();
      if (timed && left <= 0) {
        result.complete(null);
        return;
      }
      if (topic == null) {
        topic = runtime.wakeUps().join(keys.channel());
        joined = topic;
        parked = false;
      } else {
        parked = topic.park(this, generation);
        if (parked) {
          long waitNanos = runtime.recheckNanos();
          if (ttlMillis > 0) {
            waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(ttlMillis) + 1);
          }
          if (timed) {
            waitNanos = Math.min(waitNanos, left);
          }
          WakeUps.Topic on = topic;
          recheck =
              runtime
                  .timer()
                  .schedule(() -> recheckDue(on), waitNanos, TimeUnit.NANOSECONDS);
        }
      }
    }
    if (joined != null) {
      joined
          .subscribed()
          .whenComplete(
              (ok, failure) -> {
                if (failure != null) {
                  retryOrFail(failure, System.nanoTime());
                } else {
                  attempt();
                }
              });
    } else if (!parked) {
      attempt(); // a release arrived while the attempt was on its way
    }
  }

  private void recheckDue(WakeUps.Topic on) {
    if (on.unpark(this)) {
      attempt();
    }
  }

  private void retryOrFail(Throwable failure, long sentAt) {
    if (result.isDone()) {
      return;
    }
    if (!Failures.isTransient(failure)) {
      result.completeExceptionally(Failures.wrap(keys.describe(), "acquire", failure));
      return;
    }
    long now = System.nanoTime();
    synchronized (this) {
      if (!failing) {
        failing = true;
        failingSince = sentAt;
      }
      if (now - failingSince >= runtime.commandTimeoutNanos() || (timed && now - deadline >= 0)) {
        result.completeExceptionally(
            new WardenException(
                keys.describe()
                    + ": acquire failed: Redis did not answer for "
                    + Duration.ofNanos(now - failingSince).toMillis()
                    + " ms",
                Failures.unwrap(failure)));
        return;
      }
    }
    long backoff = Math.min(TimeUnit.MILLISECONDS.toNanos(50), runtime.commandTimeoutNanos() / 10);
    runtime.timer().schedule(this::attempt, backoff, TimeUnit.NANOSECONDS);
  }

  private void verdictOverdue() {
    result.completeExceptionally(
        new WardenException(
            keys.describe()
                + ": acquire failed: no answer from Redis within the wait plus "
                + TimeUnit.NANOSECONDS.toMillis(runtime.verdictMarginNanos())
                + " ms"));
  }

  private void cleanUp() {
    WakeUps.Topic left;
    synchronized (this) {
      if (recheck != null) {
        recheck.cancel(false);
        recheck = null;
      }
      if (verdict != null) {
        verdict.cancel(false);
        verdict = null;
      }
      left = topic;
      topic = null;
    }
    if (left != null) {
      left.unpark(this);
      runtime.wakeUps().leave(left);
    }
    runtime.unregister(this);
  }
}
