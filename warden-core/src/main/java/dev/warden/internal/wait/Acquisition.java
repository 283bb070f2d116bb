package dev.warden.internal.wait;

import dev.warden.WardenException;
import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Failures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * One attempt to take something (a lock, permits, ...), waiting if needed: an asynchronous state
 * machine driven by script replies (Lettuce event loop), release messages ({@link Subscriptions})
 * and timers (the Warden's {@link Timer}). Nothing in it blocks but {@link #await}.
 *
 * <p>It tries once (through its {@link Claim}); if the object is not free, it joins its topic,
 * tries again once the subscription is confirmed (a release between the first try and the
 * subscription would otherwise go unseen), then parks until a release message, a re-check timer
 * (the recheck interval, or the holder's remaining lease if shorter) or the deadline. A claim that
 * shares its waiting ({@link Claim#sharing()}) parks in its object's line, whose one timer
 * re-checks by its first waiter only (see {@link Topic}); such an acquisition has a timer of its
 * own only for its deadline. Any other has its own re-check timer. A re-check (not a wake-up) asks
 * Redis nothing while the claim says another owner of this client holds the object ({@link
 * Claim#heldLocally()}), whose release hands it over or wakes this client's waiters. Transient
 * Redis failures are retried until they have lasted the command timeout. A timed acquisition also
 * has a verdict timer at the deadline plus a margin, so it completes on time even when Redis does
 * not answer at all.
 *
 * <p>It completes with the grant, with {@code null} when the wait ran out, or exceptionally.
 * Whoever cancels it owns nothing: {@link GiveBacks} gives back a grant that arrives after that,
 * and what an attempt whose outcome is unknown may have taken.
 *
 * <p>A parked acquisition whose claim takes hand-offs is also a {@link Successor} (see HandOff).
 *
 * @param <T> what the claim grants
 */
public final class Acquisition<T> implements Waiter, Successor {
  private final CompletableFuture<T> result = new CompletableFuture<>();
  private final Waiting waiting;
  private final Claim<T> claim;
  private final boolean timed;
  private final long deadline;
  final Reporting reporting; // what it tells listeners, and how Waiting lists it
  private Topic topic; // guarded by this
  private Timer.Scheduled recheck; // guarded by this; its own re-check, when not in a line
  private Timer.Scheduled deadlineTimer; // guarded by this; its deadline, when in a line
  private volatile long order = -1; // set when it first joins a topic
  private Timer.Scheduled verdict; // guarded by this
  private long failingSince; // guarded by this; valid while failing
  private boolean failing; // guarded by this
  private final GiveBacks<T> giveBacks;

  /**
   * Creates an acquisition; {@link #start()} sends its first attempt.
   *
   * @param waitNanos how long to wait; negative means forever
   */
  public Acquisition(Waiting waiting, Claim<T> claim, long waitNanos) {
    this.waiting = waiting;
    this.claim = claim;
    this.giveBacks = new GiveBacks<>(claim, result);
    this.timed = waitNanos >= 0;
    this.reporting = new Reporting(waiting, claim);
    this.deadline =
        reporting.startedNanos() + (timed ? Math.min(waitNanos, Long.MAX_VALUE / 4) : 0);
  }

  /** Sends the first attempt; returns this acquisition. */
  // FutureReturnValueIgnored: cleanUp handles the outcome; the copy whenComplete returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  public Acquisition<T> start() {
    reporting.started();
    waiting.register(this);
    result.whenComplete(this::cleanUp);
    if (result.isDone()) { // the Warden is closed: its timer takes nothing more
      return this;
    }
    if (timed) {
      long margin = waiting.settings().verdictMarginNanos();
      synchronized (this) {
        verdict =
            waiting
                .timer()
                .schedule(this::verdictOverdue, deadline - waiting.clock().nanoTime() + margin);
      }
    }
    attempt(true);
    return this;
  }

  /**
   * Waits for the grant on the caller's thread; null when the wait ran out. When interrupted (and
   * interruptible), abandons the acquisition, gives back a grant that arrived meanwhile, and
   * throws. Failures are thrown as {@link Failures#forCaller} says.
   */
  public T await(boolean interruptible) throws InterruptedException {
    if (!interruptible) {
      return Calls.awaitUninterruptibly(result, claim.describe(), claim.verb());
    }
    return Calls.await(result, claim.describe(), claim.verb(), giveBacks::abandon);
  }

  /** Runs {@code action} when the acquisition completes, on the thread that completes it. */
  // FutureReturnValueIgnored: only registers the action; the copy it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  public void whenComplete(BiConsumer<? super T, ? super Throwable> action) {
    result.whenComplete(action);
  }

  /**
   * Abandons the acquisition if it is not over; a grant arriving later is given back. Returns
   * whether it was abandoned.
   */
  public boolean cancel() {
    giveBacks.beginEnding();
    return result.cancel(false);
  }

  /** Fails the acquisition from outside, e.g. when the Warden closes. */
  void fail(WardenException failure) {
    result.completeExceptionally(failure);
  }

  /**
   * Ends the acquisition from outside with a failure naming its object and {@code why}, as a
   * cancellation would end it: what its attempts may have taken is given back and its queue left
   * first; a grant already on its way to the caller wins.
   */
  void end(String why) {
    if (giveBacks.beginEnding()) {
      result.completeExceptionally(failure(why));
    }
  }

  /** A failure of this acquisition that names its object: {@code lock 'x': acquire failed: why}. */
  WardenException failure(String why) {
    return new WardenException(claim.describe() + ": " + claim.verb() + " failed: " + why);
  }

  /** Whether it re-enters a hold its owner has. */
  boolean reentry() {
    return claim.reentry();
  }

  @Override
  public String waiterId() {
    return claim.waiterId();
  }

  @Override
  public Successor successor() {
    return claim.handOffTerms() == null ? null : this;
  }

  @Override
  public HandOffTerms terms() {
    return claim.handOffTerms();
  }

  @Override
  public long ticket() {
    return claim.ticket();
  }

  @Override
  public SharedWait sharing() {
    return claim.sharing();
  }

  @Override
  public long order() {
    return order;
  }

  @Override
  public void grant(long token, long sentAtNanos) {
    granted(claim.handedOver(token, sentAtNanos));
  }

  @Override
  public void reparkOrWake(Topic on, long claimedAtGeneration) {
    boolean parked;
    synchronized (this) {
      BooleanSupplier stillDue;
      if (Topic.sharesRecheck(this)) {
        Timer.Scheduled timer =
            deadlineTimer; // its line re-checks it; only its deadline is its own
        stillDue = () -> timer == null || !timer.isDone();
      } else {
        Timer.Scheduled timer = recheck;
        stillDue = () -> timer != null && !timer.isDone();
      }
      parked =
          !result.isDone()
              && topic == on
              && on.restore(this, claimedAtGeneration, stillDue, Long.MAX_VALUE);
    }
    if (!parked) {
      wake();
    }
  }

  /**
   * Completes the acquisition with a direct grant's token; {@link Topic#granted} took it off its
   * topic (it was parked: no attempt of its own in flight). If it is ending meanwhile, the grant is
   * given back by its acquisition id, as any grant nobody will use.
   */
  void grantedDirectly(long token) {
    granted(claim.grantedDirectly(token, waiting.clock().nanoTime()));
  }

  /** The claim, for its topic's give-back of direct grants nobody took. */
  Claim<T> claim() {
    return claim;
  }

  @Override
  public void handOffInDoubt() {
    giveBacks.handOffInDoubt(); // over: gives back what it may have been handed
    wake(); // else its next attempt finds it
  }

  @Override
  public void wake() {
    Topic on;
    synchronized (this) {
      if (recheck != null) {
        recheck.cancel();
        recheck = null;
      }
      on = topic;
    }
    if (result.isDone()) {
      if (on != null) {
        // given a release it will not use: pass it on to the next local waiter (for a fair
        // lock's head this is only a spare wake-up; its leaving tells the next head)
        waiting.subscriptions().releasedLocally(on.channel(), WakeMessage.ONE);
      }
      return;
    }
    attempt(false);
  }

  @Override
  public boolean waitsForLocalHolder() {
    return !result.isDone() && claim.heldLocally();
  }

  @Override
  public void recheck() {
    if (!result.isDone()) {
      attempt(true);
    }
  }

  /**
   * Joins the channel's topic and lists the acquisition there for direct grants, or for giving back
   * grants nobody here took ({@link Topic#enlist}); gives it its place in its topics' order if it
   * has none yet. Returns the topic. Caller holds this acquisition's monitor.
   */
  private Topic joinListed(Subscriptions subscriptions, String channel) {
    topic = subscriptions.join(channel);
    topic.enlist(this);
    if (order < 0) {
      order = waiting.nextOrder();
    }
    return topic;
  }

  /**
   * Tries once more. {@code mayWaitLocally}: no wake-up came since the last attempt (the first
   * attempt, a re-check), so while another owner of this client holds the object the acquisition
   * parks again without asking Redis.
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void attempt(boolean mayWaitLocally) {
    long generation;
    boolean othersWait;
    Topic seen;
    Subscriptions subscriptions = waiting.subscriptions();
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      // Before joining, a topic other waiters already subscribed counts wake-ups for this attempt
      // too: if it is still the one joined after a refusal, no second attempt is needed.
      Topic existing = topic != null ? topic : subscriptions.topic(claim.channel());
      boolean subscribed = existing != null && (topic != null || existing.isSubscribed());
      if (topic == null && subscribed && claim.grantId() != null) {
        // Listed for direct grants before the attempt is sent: a grant that comes before its
        // refusal is read (the message and the reply travel on two connections) is kept for it
        // (Topic.granted: its next attempt takes it), not given back at once as a grant to an
        // ended acquisition. That give-back's release granted on to the next head, whose client
        // could do the same: for the fair lock a grant takes its head out of the queue, so such a
        // chain emptied the queue, and its waiters came back only at their re-check or heartbeat
        // (CrossClientTurnsIT). If the topic lingered out meanwhile, the one joined is a new
        // subscription, which the refusal waits for (a release before it is confirmed would go
        // unseen); listed there all the same: it may carry the grant before the refusal is read,
        // and nobody else listed there would give it back.
        subscribed = joinListed(subscriptions, claim.channel()) == existing;
      }
      seen = subscribed ? existing : null;
      generation = seen == null ? -1 : seen.generation();
      othersWait = subscriptions.othersWait(claim.channel(), topic);
    }
    if (mayWaitLocally && claim.heldLocally()) {
      // read after the generation: a release since then makes the park fail, and we try
      heldByAnother(0, claim.channel(), seen, generation);
      return;
    }
    long sentAt = waiting.clock().nanoTime();
    GiveBacks.Sent<T> sent;
    try {
      sent = giveBacks.send(() -> claim.attempt(othersWait));
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return;
    }
    if (sent == null) {
      return; // ending: no attempt may follow its give-back and leave
    }
    long number = sent.number();
    sent.reply()
        .whenComplete(
            (outcome, failure) -> {
              giveBacks.answered(number, failure);
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

  /** Hands the grant of an attempt, or of a hand-off, to the caller if it still may. */
  private void granted(T granted) {
    GiveBacks.Grant fate = giveBacks.granted();
    if (fate == GiveBacks.Grant.GIVE_BACK || !result.complete(granted)) {
      giveBacks.unused(granted); // cancelled or failed meanwhile: nobody will use it
    }
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void heldByAnother(long retryAfterMillis, String channel, Topic seen, long generation) {
    Topic joined = null;
    Topic left = null;
    boolean parked = false;
    Subscriptions subscriptions = waiting.subscriptions();
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      failing = false;
      long remaining = deadline - waiting.clock().nanoTime();
      if (timed && remaining <= 0) {
        if (giveBacks.beginEnding()) {
          result.complete(null);
        }
        return;
      }
      if (topic != null && !topic.channel().equals(channel)) {
        left = topic; // refused by something else now (a multi-lock's other part): follow it
        topic = null;
      }
      if (topic == null) {
        joinListed(subscriptions, channel);
        // subscribed since before the attempt: park as if it had been joined
        joined = topic == seen ? null : topic;
      } else if (seen == null) {
        joined = topic; // listed early on a subscription made anew (attempt): wait for it
      }
      if (joined == null) {
        // in a line, the line's interval (backing off) bounds it; else the recheck interval
        long recheckNanos =
            Topic.sharesRecheck(this) ? Long.MAX_VALUE : waiting.settings().recheckNanos();
        if (retryAfterMillis > 0) {
          // the holder's remaining lease: it may be found free then
          recheckNanos =
              Math.min(recheckNanos, TimeUnit.MILLISECONDS.toNanos(retryAfterMillis) + 1);
        }
        parked = topic.restore(this, generation, () -> true, recheckNanos);
        Topic on = topic;
        if (parked && !Topic.sharesRecheck(this)) {
          recheck =
              waiting
                  .timer()
                  .schedule(
                      () -> recheckDue(on),
                      timed ? Math.min(recheckNanos, remaining) : recheckNanos);
        } else if (parked && timed && deadlineTimer == null) {
          deadlineTimer = waiting.timer().schedule(this::deadlineDue, remaining);
        }
      }
    }
    if (left != null) {
      left.unenlist(this);
      subscriptions.leave(left);
    }
    if (joined != null) {
      joined
          .subscribed()
          .whenComplete(
              (ok, failure) -> {
                if (failure != null) {
                  retryOrFail(failure, waiting.clock().nanoTime());
                } else {
                  attempt(true);
                }
              });
    } else if (!parked) {
      attempt(false); // a release arrived while the attempt was on its way
    }
  }

  private void recheckDue(Topic on) {
    if (on.unpark(this)) {
      recheck();
    }
  }

  /** The deadline of a timed acquisition in a line: if parked, it checks a last time. */
  private void deadlineDue() {
    Topic on;
    synchronized (this) {
      on = topic;
    }
    if (on != null && on.unpark(this)) {
      recheck();
    }
  }

  private void retryOrFail(Throwable failure, long sentAt) {
    if (result.isDone()) {
      return;
    }
    if (!Failures.isTransient(failure)) {
      if (giveBacks.beginEnding()) {
        result.completeExceptionally(Failures.forCaller(claim.describe(), claim.verb(), failure));
      }
      return;
    }
    long now = waiting.clock().nanoTime();
    synchronized (this) {
      if (!failing) {
        failing = true;
        failingSince = sentAt;
      }
      if (now - failingSince >= waiting.settings().commandTimeoutNanos()
          || (timed && now - deadline >= 0)) {
        if (!giveBacks.beginEnding()) {
          return;
        }
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
    waiting.timer().schedule(() -> attempt(false), waiting.settings().retryBackoffNanos());
  }

  private void verdictOverdue() {
    if (!giveBacks.beginEnding()) {
      return;
    }
    result.completeExceptionally(
        new WardenException(
            claim.describe()
                + ": "
                + claim.verb()
                + " failed: no answer from Redis within the wait plus "
                + TimeUnit.NANOSECONDS.toMillis(waiting.settings().verdictMarginNanos())
                + " ms"));
  }

  private void cleanUp(T granted, Throwable failure) {
    Topic left;
    synchronized (this) {
      if (recheck != null) {
        recheck.cancel();
        recheck = null;
      }
      if (verdict != null) {
        verdict.cancel();
        verdict = null;
      }
      if (deadlineTimer != null) {
        deadlineTimer.cancel();
        deadlineTimer = null;
      }
      left = topic;
      topic = null;
    }
    if (left != null) {
      left.unpark(this);
      left.unenlist(this);
      waiting.subscriptions().leave(left);
    }
    waiting.unregister(this);
    claim.finished(granted != null && failure == null);
    reporting.ended(granted, failure);
  }
}
