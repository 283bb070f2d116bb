package dev.warden.internal;

import dev.warden.WardenException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to take something (a lock, permits, ...), waiting if needed: an asynchronous state
 * machine driven by script replies (Lettuce event loop), release messages ({@link WakeUps}) and
 * timers (the Warden's timer thread). Nothing in it blocks.
 *
 * <p>It tries once (through its {@link Claim}); if the object is not free, it joins its topic,
 * tries again once the subscription is confirmed (a release between the first try and the
 * subscription would otherwise go unseen), then parks until a release message, its re-check timer
 * (the recheck interval, or the holder's remaining lease if shorter) or the deadline. Transient
 * Redis failures are retried until they have lasted the command timeout. A timed acquisition also
 * has a verdict timer at the deadline plus a margin, so it completes on time even when Redis does
 * not answer at all.
 *
 * <p>{@link #result} completes with the grant, with {@code null} when the wait ran out, or
 * exceptionally. Whoever cancels it owns nothing; a grant that arrives after cancellation is
 * released here.
 */
final class Acquisition<T> implements WakeUps.Waiter {
  private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

  /**
   * What is being acquired: one atomic attempt, and how to give back a grant nobody will use.
   * Implemented by each primitive (lock, fair lock, semaphore, latch, ...).
   */
  interface Claim<T> {
    /** Describes the object for messages: {@code lock 'orders'}. */
    String describe();

    /** Names what the acquisition does, for messages: {@code acquire}, {@code await}. */
    default String verb() {
      return "acquire";
    }

    /** The channel on which a release of the object is published. */
    String channel();

    /**
     * Tries once. {@code othersWait}: other local acquirers wait on the channel, so a later release
     * must publish. The reply's grant is null when the object is not free.
     */
    CompletableFuture<Outcome<T>> attempt(boolean othersWait);

    /** Gives back a grant that arrived after the acquisition was abandoned. */
    CompletableFuture<?> rollback(T granted);

    /** Called once the acquisition is over, however it ended (e.g. to leave a queue). */
    default void finished(boolean granted) {}

    /**
     * Whether the object is known to be held by another owner of this client, whose release will
     * wake this client's waiters (or hand the object to one): then the first attempt is skipped and
     * the acquisition parks at once. Wake-ups that come meanwhile are not lost: the topic's
     * generation is read before this is asked.
     */
    default boolean heldLocally() {
      return false;
    }

    /**
     * The id by which a release message may name this acquisition to wake it (alone, as the fair
     * lock's head, or first, as a semaphore's; see {@link WakeUps.Topic#wake(String)}); null if
     * releases never name one.
     */
    default String waiterId() {
      return null;
    }
  }

  /**
   * The reply of one attempt: the grant, or null and how long the current holder may still hold
   * (ms; 0 or less when unknown), which bounds the wait before the next attempt.
   */
  record Outcome<T>(T granted, long retryAfterMillis, String channel) {
    static <T> Outcome<T> granted(T granted) {
      return new Outcome<>(granted, 0, null);
    }

    static <T> Outcome<T> busy(long retryAfterMillis) {
      return new Outcome<>(null, retryAfterMillis, null);
    }

    /** Refused by something whose releases are published on {@code channel}: wait on that. */
    static <T> Outcome<T> busy(long retryAfterMillis, String channel) {
      return new Outcome<>(null, retryAfterMillis, channel);
    }
  }

  final CompletableFuture<T> result = new CompletableFuture<>();
  private final WardenRuntime runtime;
  private final Claim<T> claim;
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
  Acquisition(WardenRuntime runtime, Claim<T> claim, long waitNanos) {
    this.runtime = runtime;
    this.claim = claim;
    this.timed = waitNanos >= 0;
    this.deadline = System.nanoTime() + (timed ? Math.min(waitNanos, Long.MAX_VALUE / 4) : 0);
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  Acquisition<T> start() {
    runtime.register(this);
    result.whenComplete((granted, failure) -> cleanUp(granted != null && failure == null));
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
   * Abandons the acquisition (the caller was interrupted or gave up): afterwards nothing is held. A
   * grant that had already been made is given back.
   */
  void abandonAndGiveBack() {
    if (result.cancel(false) || result.isCompletedExceptionally()) {
      return; // a grant arriving later is given back by granted()
    }
    T granted = result.getNow(null);
    if (granted != null) {
      giveBack(granted);
    }
  }

  /** Names what the acquisition does, for messages. */
  String verb() {
    return claim.verb();
  }

  /** Fails the acquisition from outside, e.g. when the Warden closes. */
  void fail(WardenException failure) {
    result.completeExceptionally(failure);
  }

  @Override
  public String waiterId() {
    return claim.waiterId();
  }

  @Override
  public void wake() {
    WakeUps.Topic on;
    synchronized (this) {
      if (recheck != null) {
        recheck.cancel(false);
        recheck = null;
      }
      on = topic;
    }
    if (result.isDone()) {
      if (on != null) {
        // given a release it will not use: pass it on to the next local waiter (for a fair
        // lock's head this is only a spare wake-up; its leaving tells the next head)
        runtime.wakeUps().releasedLocally(on.channel(), LockDriver.WAKE_ONE);
      }
      return;
    }
    attempt();
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void attempt() {
    long generation;
    boolean othersWait;
    boolean first;
    WakeUps.Topic seen;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      first = topic == null;
      // Before joining, a topic other waiters already subscribed counts wake-ups for this attempt
      // too: if it is still the one joined after a refusal, no second attempt is needed.
      WakeUps.Topic existing = topic != null ? topic : runtime.wakeUps().topic(claim.channel());
      seen = existing != null && (topic != null || isSubscribed(existing)) ? existing : null;
      generation = seen == null ? -1 : seen.generation();
      othersWait = runtime.wakeUps().othersWait(claim.channel(), topic);
    }
    if (first && claim.heldLocally()) {
      // read after the generation: a release since then makes the park fail, and we try
      heldByAnother(0, claim.channel(), seen, generation);
      return;
    }
    long sentAt = System.nanoTime();
    CompletableFuture<Outcome<T>> reply;
    try {
      reply = claim.attempt(othersWait);
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    reply.whenComplete(
        (outcome, failure) -> {
          if (failure != null) {
            retryOrFail(failure, sentAt);
          } else if (outcome.granted() != null) {
            granted(outcome.granted());
          } else {
            heldByAnother(
                outcome.retryAfterMillis(),
                outcome.channel() != null ? outcome.channel() : claim.channel(),
                seen,
                generation);
          }
        });
  }

  Claim<T> claim() {
    return claim;
  }

  /**
   * Completes the acquisition with a grant made for it elsewhere (a hold handed over by another
   * thread of this client); a grant it can no longer use is given back.
   */
  void grant(T granted) {
    granted(granted);
  }

  /**
   * Parks again on {@code on} after {@link WakeUps.Topic#claim} took this waiter for a hand-off
   * that did not happen; returns false when it must be woken instead (a wake-up came meanwhile, its
   * re-check timer already ran, or it is over).
   */
  boolean repark(WakeUps.Topic on, long claimedAtGeneration) {
    synchronized (this) {
      ScheduledFuture<?> timer = recheck;
      return !result.isDone()
          && topic == on
          && on.restore(this, claimedAtGeneration, () -> timer != null && !timer.isDone());
    }
  }

  private void granted(T granted) {
    if (!result.complete(granted)) {
      giveBack(granted); // cancelled or failed meanwhile: nobody will use this grant
    }
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void giveBack(T granted) {
    claim
        .rollback(granted)
        .whenComplete(
            (released, failure) -> {
              if (failure != null) {
                log.warn(
                    "{}: could not give back an abandoned acquisition; it expires with its lease:"
                        + " {}",
                    claim.describe(),
                    Failures.unwrap(failure).toString());
              }
            });
  }

  private static boolean isSubscribed(WakeUps.Topic topic) {
    CompletableFuture<Void> subscribed = topic.subscribed();
    return subscribed != null && subscribed.isDone() && !subscribed.isCompletedExceptionally();
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void heldByAnother(
      long retryAfterMillis, String channel, WakeUps.Topic seen, long generation) {
    WakeUps.Topic joined = null;
    WakeUps.Topic left = null;
    boolean parked = false;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      failing = false;
      long remaining = deadline - System.nanoTime();
      if (timed && remaining <= 0) {
        result.complete(null);
        return;
      }
      if (topic != null && !topic.channel().equals(channel)) {
        left = topic; // refused by something else now (a multi-lock's other part): follow it
        topic = null;
      }
      if (topic == null) {
        topic = runtime.wakeUps().join(channel);
        if (topic == seen) {
          joined = null; // subscribed since before the attempt: park as if it had been joined
        } else {
          joined = topic;
        }
      }
      if (joined == null) {
        parked = topic.park(this, generation);
        if (parked) {
          long waitNanos = runtime.recheckNanos();
          if (retryAfterMillis > 0) {
            waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(retryAfterMillis) + 1);
          }
          if (timed) {
            waitNanos = Math.min(waitNanos, remaining);
          }
          WakeUps.Topic on = topic;
          recheck = runtime.timer().schedule(() -> recheckDue(on), waitNanos, TimeUnit.NANOSECONDS);
        }
      }
    }
    if (left != null) {
      runtime.wakeUps().leave(left);
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

  // FutureReturnValueIgnored: the timer's future is not needed: attempt() completes this acquisition's result itself
  @SuppressWarnings("FutureReturnValueIgnored")
  private void retryOrFail(Throwable failure, long sentAt) {
    if (result.isDone()) {
      return;
    }
    if (!Failures.isTransient(failure)) {
      result.completeExceptionally(Failures.forCaller(claim.describe(), claim.verb(), failure));
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
                claim.describe()
                    + ": "
                    + claim.verb()
                    + " failed: Redis did not answer for "
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
            claim.describe()
                + ": "
                + claim.verb()
                + " failed: no answer from Redis within the wait plus "
                + TimeUnit.NANOSECONDS.toMillis(runtime.verdictMarginNanos())
                + " ms"));
  }

  private void cleanUp(boolean granted) {
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
    claim.finished(granted);
  }
}
