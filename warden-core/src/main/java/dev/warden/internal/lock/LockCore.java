package dev.warden.internal.lock;

import dev.warden.LeaseExpiredException;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The algorithm every lock type shares, over its {@link LockDriver} (the role of Curator's {@code
 * LockInternals}): acquire through an {@link Acquisition}, adopt the grant as a local {@link Hold},
 * and release with retries, hand-off and the verdict on a lost lease.
 *
 * <p>Every script call carries the owner's hold count as this client knows it, and sets the owner's
 * count in Redis from it: the client's count is the truth for the client, so Redis counts what
 * {@link Holds} records after every acquisition and release, and a replayed call changes nothing
 * more. A give-back names the acquisition it undoes, and changes nothing once a later acquisition
 * or release of the owner has set the count. Redis stays the authority on who holds.
 */
final class LockCore {
  private static final Logger log = LoggerFactory.getLogger(LockCore.class);

  /** A check made before every thread-bound acquisition, e.g. no write lock while reading. */
  interface Guard {
    Guard NONE = owner -> {};

    /** Throws if the owner may not acquire now. */
    void check(String owner);
  }

  private final LockContext context;
  private final LockDriver driver;
  private final Guard guard;
  private final HandOff handOff;

  LockCore(LockContext context, LockDriver driver, Guard guard) {
    this.context = context;
    this.driver = driver;
    this.guard = guard;
    this.handOff =
        new HandOff(
            driver,
            context.waiting().subscriptions(),
            context.holds(),
            context.rows(),
            context.clock());
  }

  LockDriver driver() {
    return driver;
  }

  LockContext context() {
    return context;
  }

  long now() {
    return context.clock().nanoTime();
  }

  String newAcquisitionId() {
    return context.owners().newAcquisitionId();
  }

  /** The lease of a hold the lease keeper renews. */
  Lease watchdogLease() {
    return Lease.renewed(context.settings().watchdogLeaseMillis());
  }

  /** The owner's hold on this lock, or null. */
  Hold hold(String owner) {
    return context.holds().get(driver.holdKey(), owner);
  }

  /** The owner of this client that holds this lock, or null (see {@link Holds#holder}). */
  String localHolder() {
    return context.holds().holder(driver.holdKey());
  }

  // ---- acquisition ----

  /**
   * Acquires for the calling thread; {@code waitNanos} negative waits forever. Returns false when
   * the wait ran out.
   */
  boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    return acquireForThread(lease, waitNanos, interruptible, true);
  }

  /**
   * Acquires for the calling thread, as {@link #acquireForThread(Lease, long, boolean)}; {@code
   * reported}: whether the acquisition reports itself to listeners (not as a multi-lock's part).
   */
  boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible, boolean reported)
      throws InterruptedException {
    if (context.settings().replication() != null) {
      return ReplicaCheck.forThread(this, lease, waitNanos, interruptible, reported);
    }
    return acquireOnceForThread(lease, waitNanos, interruptible, reported) != null;
  }

  /** Acquires for the calling thread once, without a replication policy; null when not in time. */
  Hold acquireOnceForThread(Lease lease, long waitNanos, boolean interruptible, boolean reported)
      throws InterruptedException {
    long budgetEnd = budgetEnd(waitNanos);
    String owner = context.owners().currentThread();
    Hold hold = holdBeforeAcquiring(owner);
    int heldBefore = hold == null ? 0 : hold.count();
    Granted granted =
        new Acquisition<>(
                context.waiting(),
                new MutexClaim(
                    this,
                    owner,
                    heldBefore,
                    lease.millis(),
                    waitNanos != 0,
                    reported,
                    lease.renewed()),
                waitNanos)
            .start()
            .await(interruptible);
    return granted == null ? null : adopt(hold, owner, granted, lease, budgetEnd);
  }

  /**
   * When a timed acquisition starting now must be over: its wait plus the verdict margin every
   * timed acquisition has; -1 for one that waits without limit ({@code waitNanos} negative).
   */
  long budgetEnd(long waitNanos) {
    return waitNanos < 0 ? -1 : now() + waitNanos + context.settings().verdictMarginNanos();
  }

  /** Starts acquiring for an owner; {@code waitNanos} negative waits forever. */
  Acquisition<Granted> acquisition(String owner, int heldBefore, long leaseMillis, long waitNanos) {
    return new Acquisition<>(
            context.waiting(),
            new MutexClaim(this, owner, heldBefore, leaseMillis, waitNanos != 0, true),
            waitNanos)
        .start();
  }

  /**
   * Returns the owner's hold before a new acquisition, after the checks every acquisition makes: an
   * explicit lease that ran out as asked has ended; a hold known to be lost is reported; the lock
   * type's guard may refuse (no upgrade of a read lock).
   */
  Hold holdBeforeAcquiring(String owner) {
    Hold hold = hold(owner);
    if (hold != null && (hold.explicitLeaseRanOut(now()) || givenUp(hold))) {
      // an explicit lease that ran out as asked (e.g. a lock used as a throttle), or a hold whose
      // owner gave it up with a last release that failed: it ended for this client. What Redis
      // may still have of it becomes the new acquisition's own (count 1, a new token)
      forget(hold);
      hold = null;
    }
    if (hold != null && hold.state() == Hold.State.LOST) {
      throw leaseExpired(hold, "acquire again");
    }
    guard.check(owner);
    return hold;
  }

  /**
   * The owner's hold on this lock as its next acquisition sees it: null when it has none, or when
   * the one recorded has ended for this client (an explicit lease that ran out, or given up by a
   * last release that failed); the record itself stays (see {@link #holdBeforeAcquiring}).
   */
  Hold liveHold(String owner) {
    Hold hold = hold(owner);
    return hold == null || hold.explicitLeaseRanOut(now()) || givenUp(hold) ? null : hold;
  }

  /**
   * Whether the owner gave the hold up: its last release failed and may not have run. Only calling
   * unlock() again (the same release) still uses it; an acquisition does not re-enter it.
   */
  private static boolean givenUp(Hold hold) {
    return hold.releaseInDoubt() && hold.count() == 1 && hold.state() == Hold.State.HELD;
  }

  /**
   * Records a grant as the owner's hold, as {@link #adopt(Hold, String, Granted, Lease, long)}
   * without a budget (a give-back is waited for up to the command timeout).
   */
  Hold adopt(Hold before, String owner, Granted granted, Lease lease) {
    return adopt(before, owner, granted, lease, -1);
  }

  /**
   * Records a grant as the owner's hold. If the grant's token shows that the owner's earlier hold
   * was lost (this call took the lock afresh), gives the grant back and throws; the give-back is
   * waited for until {@code budgetEnd} at most ({@link #budgetEnd}; -1: up to the command timeout).
   */
  Hold adopt(Hold before, String owner, Granted granted, Lease lease, long budgetEnd) {
    if (before != null
        && (granted.token() != before.token() || before.state() == Hold.State.LOST)) {
      // the hold this re-entry went into (or took afresh) is not the one this client knows:
      // that one is lost, and the owner keeps nothing. Or it is, but the client declared it lost
      // while the re-entry was under way (its reply came after the lease deadline): the drop of
      // the lost hold (Hold.markLostByDeadline) may have ended it in Redis after the re-entry ran
      // there, and the owner keeps nothing either. The give-back names this acquisition: it
      // is waited for within the caller's budget only (a frozen Redis must not keep a timed
      // caller past its wait; its lease ends a hold Redis never gets to give back), and its
      // failure does not change the verdict
      awaitGiveBack(
          giveBackInDoubt(owner, granted.acquisitionId(), 0),
          budgetEnd,
          "a re-entry into a lost hold");
      if (before.markLost("the lock was taken afresh by a reentrant call", context.callbacks())) {
        context.holds().lost(before);
      }
      throw leaseExpired(before, "acquire again");
    }
    long deadline = granted.leaseDeadline(lease.millis());
    if (before == null) {
      Hold hold =
          new Hold(
              driver.describe(),
              driver.subject(),
              granted.sentAtNanos(),
              context.waiting().events(),
              owner,
              granted.token(),
              granted.holdCount(),
              lease.millis(),
              deadline,
              driver.renewal(),
              (lost, reason) -> Revocation.revoke(this, lost, reason),
              lost -> LostHolds.drop(this, lost));
      hold.acquisition(granted.acquisitionId());
      context.holds().add(driver.holdKey(), hold, driver.waitsForLocalHolder(), lease.renewed());
      if (granted.unconfirmed()) {
        context.holds().confirm(hold); // only a watchdog lease takes grants: it is kept
      }
      return hold;
    }
    before.count(granted.holdCount());
    before.acquisition(granted.acquisitionId());
    before.extendLeaseDeadline(deadline);
    if (lease.renewed()) {
      context.holds().renew(before);
    }
    return before;
  }

  /**
   * Gives back a grant that an abandoned acquisition of {@code owner} got: the owner's count goes
   * back to what the acquisition started from, if the hold is still the one it set.
   */
  CompletableFuture<?> giveBack(String owner, Granted granted) {
    if (granted.holdCount() == 1) {
      context.holds().givenBack(driver.holdKey(), owner); // a re-entry's owner still holds it
    }
    return giveBackInDoubt(owner, granted.acquisitionId(), granted.holdCount() - 1);
  }

  /**
   * Waits for a give-back sent, until {@code budgetEnd} at most (-1: until it answers, which the
   * command timeout bounds); one that failed, or did not answer in time, is logged, and its lease
   * ends what it could not.
   */
  private void awaitGiveBack(CompletableFuture<?> sent, long budgetEnd, String what) {
    long left = budgetEnd < 0 ? Long.MAX_VALUE : budgetEnd - now();
    Throwable failure = context.calls().awaitAtMost(sent, left);
    if (failure != null) {
      log.warn(
          "{}: could not give back {}; it expires with its lease: {}",
          driver.describe(),
          what,
          Failures.unwrap(failure).toString());
    }
  }

  /**
   * Gives back what acquisition {@code acquisitionId} of {@code owner} may have taken, if it took
   * it and nothing has changed the owner's count since: the owner keeps {@code heldBefore}, the
   * count the acquisition started from. The owner's local record (and its place as the local
   * holder, for a re-entry) stays as it is: this client never learnt of the grant.
   */
  CompletableFuture<?> giveBackInDoubt(String owner, String acquisitionId, int heldBefore) {
    return driver
        .giveBack(owner, acquisitionId, heldBefore)
        .thenAccept(
            released -> {
              if (released.held() && released.remaining() == 0) {
                wakeLocal(released.wake());
              }
            });
  }

  // ---- release ----

  /**
   * Gives back one hold: blocks for the script's reply, retrying transient failures for up to the
   * command timeout. The last hold goes straight to a parked waiter of this client where the lock
   * type can. Every run of one release carries the same release id, also when the caller calls
   * again after a {@code WardenException}: a run that finds the hold gone counts it as released
   * only when an earlier run of this release ended it (it finds its marker); otherwise the hold was
   * lost before, and {@link LeaseExpiredException} says so.
   */
  void release(Hold hold) {
    if (!hold.beginRelease()) {
      throw LostHolds.unlockFailure(this, hold);
    }
    int heldBefore = hold.count();
    String releaseId = hold.releaseId(this::newAcquisitionId);
    LockDriver.Release reply;
    try {
      reply =
          context
              .calls()
              .awaitRetrying(
                  driver.describe(),
                  "unlock",
                  () -> releaseCall(hold, heldBefore, releaseId),
                  () -> hold.releaseInDoubt(true)); // it may have run
    } catch (RuntimeException e) {
      releaseFailed(hold, heldBefore);
      throw e;
    }
    released(hold, heldBefore, reply);
  }

  /** After a release that failed: its hold stays the owner's, renewed unless it may be gone. */
  private void releaseFailed(Hold hold, int heldBefore) {
    if (heldBefore == 1 && hold.releaseInDoubt()) {
      // The owner gave up its last hold, and the release may not have run: nothing renews the
      // hold any more, so it ends within its lease unless calling unlock() again (the same
      // release) ends it first; and the owner's next acquisition starts afresh (givenUp)
      // instead of re-entering it, which would keep it held while the owner goes on locking.
      context.holds().stopRenewing(hold);
    }
    hold.endRelease(false);
  }

  /**
   * Gives back one hold as {@link #release} does (the same release id across its runs and across
   * calls after a failure), without blocking: the first call is sent on the calling thread, retries
   * from the timer. The future completes on a Redis I/O thread or the timer (dependent stages must
   * not block), exceptionally with {@link LeaseExpiredException} or a {@code WardenException}.
   */
  CompletableFuture<Void> releaseAsync(Hold hold) {
    if (!hold.beginRelease()) {
      return LostHolds.unlockAsync(this, hold);
    }
    int heldBefore = hold.count();
    String releaseId = hold.releaseId(this::newAcquisitionId);
    return context
        .calls()
        .retrying(
            driver.describe(),
            "unlock",
            () -> releaseCall(hold, heldBefore, releaseId),
            () -> hold.releaseInDoubt(true))
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                releaseFailed(hold, heldBefore);
                throw new CompletionException(Failures.unwrap(failure));
              }
              released(hold, heldBefore, reply);
              return null;
            });
  }

  private CompletableFuture<LockDriver.Release> releaseCall(
      Hold hold, int heldBefore, String releaseId) {
    return heldBefore == 1
        ? driver.releaseLast(hold.owner(), releaseId, handOff)
        : driver.release(hold.owner(), heldBefore, releaseId);
  }

  /** What a release's reply means for the hold; throws if the hold was found lost. */
  private void released(Hold hold, int heldBefore, LockDriver.Release reply) {
    hold.releaseDone();
    if (!reply.held()) {
      hold.lostAtRelease(
          "the lock expired, was force-unlocked, or was lost with Redis data", context.callbacks());
      throw leaseExpired(hold, "unlock");
    }
    int remaining = heldBefore - 1; // what the script left: the client's count
    if (remaining > 0) {
      hold.count(remaining);
      hold.acquisition(null); // the script cleared '#a'
      hold.endRelease(false);
      return;
    }
    forget(hold);
    hold.endRelease(true);
    wakeLocal(reply.wake());
  }

  /**
   * Undoes the acquisition that last raised a hold's count, without waiting (a multi-lock's part
   * when a later part could not be had, a grant its replicas did not acknowledge): the local record
   * changes at once, and the give-back of that acquisition, by its id, is sent before the caller
   * returns; one Redis never runs ends with the lease. By its id, not as a plain release: Redis may
   * run it after what the caller does next (sent again as EVAL after NOSCRIPT, it follows the
   * caller's next acquisition of the lock, whose hold a release would end), and then it changes
   * nothing. Returns the give-back's outcome.
   */
  CompletableFuture<?> giveBackAsync(Hold hold) {
    int heldBefore = hold.count();
    String undone = hold.acquisition();
    if (!hold.beginRelease()) {
      leaseExpired(hold, "give back"); // known lost meanwhile: nothing of it is left in Redis
      return CompletableFuture.completedFuture(null);
    }
    if (heldBefore > 1) {
      hold.count(heldBefore - 1);
      hold.acquisition(null);
    } else {
      forget(hold);
    }
    hold.endRelease(heldBefore == 1);
    if (undone == null) {
      // a release changed the count after the acquisition (not what the callers do): a plain
      // release of the count this client knew, less one
      return driver
          .release(hold.owner(), heldBefore, newAcquisitionId())
          .thenAccept(r -> wakeLocal(r.wake()));
    }
    return giveBackInDoubt(hold.owner(), undone, heldBefore - 1);
  }

  /**
   * Sets the lease of a hold to {@code leaseMillis} from now, if Redis still has it as this
   * owner's; the lease keeper stops renewing it first. One script call (the lock type's renewal
   * script, for this hold alone), retried on transient failures: setting a lease again is harmless.
   * Returns false, and marks the hold lost, when Redis no longer has it as this owner's.
   */
  boolean setLease(Hold hold, long leaseMillis, String operation) {
    if (hold.state() != Hold.State.HELD) {
      return false;
    }
    boolean wasRenewed = hold.renewed();
    context.holds().stopRenewing(hold);
    long sentAt = now();
    boolean kept;
    try {
      kept = runLease(hold, leaseMillis, operation);
    } catch (RuntimeException e) {
      if (wasRenewed) {
        context.holds().renew(hold); // the outcome is unknown: keep the hold as it was
      }
      throw e;
    }
    return leaseSet(hold, leaseMillis, sentAt, kept);
  }

  /**
   * Sets the lease of a hold as {@link #setLease} does, without blocking; the future completes on a
   * Redis I/O thread or the timer (dependent stages must not block).
   */
  CompletableFuture<Boolean> setLeaseAsync(Hold hold, long leaseMillis, String operation) {
    if (hold.state() != Hold.State.HELD) {
      return CompletableFuture.completedFuture(false);
    }
    boolean wasRenewed = hold.renewed();
    context.holds().stopRenewing(hold);
    long sentAt = now();
    return runLeaseAsync(hold, leaseMillis, operation)
        .handle(
            (kept, failure) -> {
              if (failure != null) {
                if (wasRenewed) {
                  context.holds().renew(hold); // the outcome is unknown: keep the hold as it was
                }
                throw new CompletionException(Failures.unwrap(failure));
              }
              return leaseSet(hold, leaseMillis, sentAt, kept);
            });
  }

  /**
   * What a lease call's reply means for the hold: false, and the hold lost, if it was gone; false
   * too if the hold was declared lost while the call was under way (a renewal sent before the call
   * failed after the lease deadline): the drop of the lost hold may have ended it in Redis after
   * the call ran there, and the owner's unlock sends that drop again if it was not answered.
   */
  private boolean leaseSet(Hold hold, long leaseMillis, long sentAt, boolean kept) {
    if (!kept || hold.state() == Hold.State.LOST) {
      if (hold.markLost("the lock expired, was force-unlocked, or was lost", context.callbacks())) {
        context.holds().lost(hold);
      }
      return false;
    }
    hold.resetLeaseDeadline(sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
    return true;
  }

  /**
   * Ends a hold while leaving its lock in Redis for {@code keepMillis} more, unrenewed: this client
   * forgets it (a normal end: its lease-lost signal never completes), and Redis expires it then.
   *
   * @throws LeaseExpiredException if Redis no longer has the hold as this owner's
   */
  void releaseAfter(Hold hold, long keepMillis) {
    if (!hold.beginRelease()) {
      throw LostHolds.unlockFailure(this, hold);
    }
    boolean wasRenewed = hold.renewed();
    context.holds().stopRenewing(hold);
    boolean kept;
    try {
      kept = runLease(hold, keepMillis, "unlock");
    } catch (RuntimeException e) {
      hold.endRelease(false);
      if (wasRenewed) {
        context.holds().renew(hold);
      }
      throw e;
    }
    releasedAfter(hold, kept);
  }

  /**
   * Ends a hold as {@link #releaseAfter} does, without blocking; the future completes on a Redis
   * I/O thread or the timer, exceptionally with {@link LeaseExpiredException} or a {@code
   * WardenException}.
   */
  CompletableFuture<Void> releaseAfterAsync(Hold hold, long keepMillis) {
    if (!hold.beginRelease()) {
      return LostHolds.unlockAsync(this, hold);
    }
    boolean wasRenewed = hold.renewed();
    context.holds().stopRenewing(hold);
    return runLeaseAsync(hold, keepMillis, "unlock")
        .handle(
            (kept, failure) -> {
              if (failure != null) {
                hold.endRelease(false);
                if (wasRenewed) {
                  context.holds().renew(hold);
                }
                throw new CompletionException(Failures.unwrap(failure));
              }
              releasedAfter(hold, kept);
              return null;
            });
  }

  private void releasedAfter(Hold hold, boolean kept) {
    if (!kept) {
      hold.lostAtRelease(
          "the lock expired, was force-unlocked, or was lost with Redis data", context.callbacks());
      throw leaseExpired(hold, "unlock");
    }
    forget(hold);
    hold.endRelease(true);
  }

  /** Runs the hold's renewal script for it alone with the given lease; true if it was renewed. */
  private boolean runLease(Hold hold, long leaseMillis, String operation) {
    return context
        .calls()
        .awaitRetrying(driver.describe(), operation, () -> leaseCall(hold, leaseMillis), () -> {})
        .isEmpty();
  }

  /** {@link #runLease} without blocking. */
  private CompletableFuture<Boolean> runLeaseAsync(Hold hold, long leaseMillis, String operation) {
    return context
        .calls()
        .retrying(driver.describe(), operation, () -> leaseCall(hold, leaseMillis), () -> {})
        .thenApply(List::isEmpty);
  }

  /** The hold's renewal script for it alone; replies with the holds not renewed. */
  private CompletableFuture<List<Object>> leaseCall(Hold hold, long leaseMillis) {
    Renewal renewal = hold.renewal();
    String[] keys = renewal.keys().toArray(String[]::new);
    return context.scripts().run(renewal.script(), keys, Long.toString(leaseMillis), hold.owner());
  }

  /** Wakes this client's waiters at once after its own release, without waiting for the message. */
  void wakeLocal(WakeMessage wake) {
    context.waiting().subscriptions().releasedLocally(driver.channel(), wake);
  }

  void forget(Hold hold) {
    context.holds().forget(driver.holdKey(), hold);
  }

  /**
   * Consumes one local hold of a lost lease and returns the exception that says so; the record is
   * forgotten once its last hold was given back.
   */
  LeaseExpiredException leaseExpired(Hold hold, String operation) {
    int left = hold.count() - 1;
    hold.count(Math.max(0, left));
    if (left <= 0) {
      forget(hold);
    }
    return new LeaseExpiredException(
        driver.describe()
            + ": cannot "
            + operation
            + ": the hold of "
            + hold.owner()
            + " (fencing token "
            + hold.token()
            + ") was lost before: "
            + hold.lostReason(),
        hold.lostCause());
  }

  /**
   * After a force-unlock: the caller's own hold simply ended; every other hold of this client is
   * lost (its record stays, so that its unlock can tell).
   */
  void forceUnlocked(String caller) {
    for (Hold hold : context.holds().on(driver.holdKey())) {
      if (hold.owner().equals(caller)) {
        forget(hold);
      } else if (hold.markLost("the lock was force-unlocked", context.callbacks())) {
        context.holds().lost(hold);
      }
    }
  }
}
