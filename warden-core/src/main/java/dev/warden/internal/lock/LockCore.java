package dev.warden.internal.lock;

import dev.warden.LeaseExpiredException;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
    String owner = context.owners().currentThread();
    Hold hold = holdBeforeAcquiring(owner);
    int heldBefore = hold == null ? 0 : hold.count();
    Granted granted =
        new Acquisition<>(
                context.waiting(),
                new MutexClaim(this, owner, heldBefore, lease.millis(), waitNanos != 0, reported),
                waitNanos)
            .start()
            .await(interruptible);
    return granted == null ? null : adopt(hold, owner, granted, lease);
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
    if (hold != null && hold.explicitLeaseRanOut(now())) {
      // an explicit lease that ran out as asked (e.g. a lock used as a throttle): it ended
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
   * Records a grant as the owner's hold. If the grant's token shows that the owner's earlier hold
   * was lost (this call took the lock afresh), gives the grant back and throws.
   */
  Hold adopt(Hold before, String owner, Granted granted, Lease lease) {
    if (before != null && granted.token() != before.token()) {
      // the hold this re-entry went into (or took afresh) is not the one this client knows:
      // that one is lost, and the owner keeps nothing
      Calls.awaitUninterruptibly(
          driver.giveBack(owner, granted.acquisitionId(), 0),
          driver.describe(),
          "release a re-entry into a lost hold");
      if (before.markLost("the lock was taken afresh by a reentrant call", context.callbacks())) {
        context.holds().lost(before);
      }
      throw leaseExpired(before, "acquire again");
    }
    long deadline = granted.sentAtNanos() + TimeUnit.MILLISECONDS.toNanos(lease.millis());
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
              driver.renewal());
      context.holds().add(driver.holdKey(), hold, driver.waitsForLocalHolder(), lease.renewed());
      return hold;
    }
    before.count(granted.holdCount());
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
      throw leaseExpired(hold, "unlock");
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
                  () ->
                      heldBefore == 1
                          ? driver.releaseLast(hold.owner(), releaseId, handOff)
                          : driver.release(hold.owner(), heldBefore, releaseId),
                  () -> hold.releaseInDoubt(true)); // it may have run
    } catch (RuntimeException e) {
      hold.endRelease(false);
      throw e;
    }
    hold.releaseDone();
    if (!reply.held()) {
      hold.lostAtRelease(
          "the lock expired, was force-unlocked, or was lost with Redis data", context.callbacks());
      throw leaseExpired(hold, "unlock");
    }
    int remaining = heldBefore - 1; // what the script left: the client's count
    if (remaining > 0) {
      hold.count(remaining);
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
   * changes at once, and the owner-checked release is sent before the caller returns, so Redis runs
   * it before anything the caller does next on this connection; one Redis never runs ends with the
   * lease. Returns the release's outcome.
   */
  CompletableFuture<?> giveBackAsync(Hold hold) {
    int heldBefore = hold.count();
    if (!hold.beginRelease()) {
      leaseExpired(hold, "give back"); // known lost meanwhile: nothing of it is left in Redis
      return CompletableFuture.completedFuture(null);
    }
    if (heldBefore > 1) {
      hold.count(heldBefore - 1);
    } else {
      forget(hold);
    }
    hold.endRelease(heldBefore == 1);
    // a plain release (the count this client knew, less one) with its own release id: nothing of
    // this owner can reach Redis between the acquisition it undoes and this call
    return driver
        .release(hold.owner(), heldBefore, newAcquisitionId())
        .thenAccept(r -> wakeLocal(r.wake()));
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
    if (!kept) {
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
      throw leaseExpired(hold, "unlock");
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
    Renewal renewal = hold.renewal();
    String[] keys = renewal.keys().toArray(String[]::new);
    List<Object> notRenewed =
        context
            .calls()
            .awaitRetrying(
                driver.describe(),
                operation,
                () ->
                    context
                        .scripts()
                        .run(renewal.script(), keys, Long.toString(leaseMillis), hold.owner()),
                () -> {});
    return notRenewed.isEmpty();
  }

  /** Wakes this client's waiters at once after its own release, without waiting for the message. */
  private void wakeLocal(WakeMessage wake) {
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
