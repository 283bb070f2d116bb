package dev.warden.internal;

import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Hands a lock straight from its holder to a parked waiter of the same client. The reentrant lock:
 * see {@link #handOff}; the fair lock: see {@link #releaseToHead}.
 *
 * <p>Hands the reentrant lock straight from a thread giving back its last hold to a parked waiter
 * of the same client (lock-transfer.lua): one script call instead of a release and an acquisition,
 * and FIFO among the client's threads. While nobody else waits, every release of a thread with a
 * parked local waiter is a hand-off. Once the lock records that a waiter a hand-off cannot reach
 * waits too (another client's, or this client's multi-lock), a real release follows at most {@link
 * #IN_A_ROW} hand-offs in a row, so that it gets its chance.
 *
 * <p>Called on the releasing (caller) thread; the waiter is completed on the event loop. Only a
 * parked waiter is taken, atomically off its topic, so no attempt of its own is in flight; a waiter
 * that gave up meanwhile gives the hold back through its acquisition.
 */
final class HandOff {
  /** How many hand-offs between this client's threads in a row before a real release. */
  static final int IN_A_ROW = 8;

  private HandOff() {}

  /**
   * Returns whether the lock was handed over; if not, the caller releases as usual (and a waiter
   * taken meanwhile was woken to try for itself).
   */
  static boolean handOff(WardenRuntime runtime, ReentrantDriver driver, Hold hold) {
    WakeUps.Topic topic = runtime.wakeUps().topic(driver.channel());
    if (topic == null || !topic.mayHandOff(IN_A_ROW)) {
      return false;
    }
    WakeUps.Waiter taken = topic.claim(waiter -> takesHandOff(waiter, driver.holdKey()));
    if (taken == null) {
      return false;
    }
    @SuppressWarnings("unchecked")
    Acquisition<RedisMutex.Granted> next = (Acquisition<RedisMutex.Granted>) taken;
    RedisMutex.Claim claim = (RedisMutex.Claim) next.claim();
    long sentAt = System.nanoTime();
    // the waiter is completed on the event loop as soon as the reply is in, not after this
    // thread has woken up to read it: one thread wake-up less per hand-off
    return driver
        .transfer(hold.owner, claim.owner(), claim.leaseMillis(), claim.id())
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                // it may have run: then the waiter's own attempt finds its hold, and the
                // release that follows finds this owner's hold gone
                hold.releaseInDoubt(true);
                next.wake();
                return false;
              }
              if (Scripts.number(reply, 0) != 1) {
                next.wake();
                return false;
              }
              topic.handedOff(Scripts.number(reply, 2) == 1);
              // before the grant: the releasing thread, locking again, must find it held here
              runtime.reentrantHolders().put(driver.holdKey(), claim.owner());
              next.grant(new RedisMutex.Granted(Scripts.number(reply, 1), 1, 1, sentAt));
              return true;
            })
        .join();
  }

  /**
   * Gives back the fair lock's last hold (fair-release.lua), offering it to this client's parked
   * waiter with the earliest ticket: if that waiter is the live head of the queue, the script gives
   * it the lock and its acquisition completes here, without a message or a script call of its own.
   * Otherwise the release tells the head as usual and the waiter stays parked.
   *
   * <p>Strictly FIFO either way: the script, not this client, decides who is first.
   */
  static CompletableFuture<LockDriver.Release> releaseToHead(
      WardenRuntime runtime, FairDriver driver, String owner) {
    WakeUps.Topic topic = runtime.wakeUps().topic(driver.channel());
    if (topic == null) {
      return driver.release(owner, 1);
    }
    long generation = topic.generation();
    WakeUps.Waiter taken =
        topic.claim(
            waiter -> takesHandOff(waiter, driver.holdKey()),
            // each lock object has its own driver, which knows the tickets of its waiters
            Comparator.comparingLong(
                waiter -> ((FairDriver) claimOf(waiter).driver()).ticket(claimOf(waiter).owner())));
    if (taken == null) {
      return driver.release(owner, 1);
    }
    @SuppressWarnings("unchecked")
    Acquisition<RedisMutex.Granted> next = (Acquisition<RedisMutex.Granted>) taken;
    RedisMutex.Claim claim = claimOf(taken);
    long sentAt = System.nanoTime();
    return driver
        .releaseTo(owner, 1, claim.owner(), claim.leaseMillis(), claim.id())
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                // it may have run: the waiter's own attempt then finds the hold it was given
                next.wake();
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              if (FairDriver.handedOver(reply)) {
                ((FairDriver) claim.driver()).handedOver(claim.owner());
                next.grant(new RedisMutex.Granted(Scripts.number(reply, 3), 1, 1, sentAt));
                return new LockDriver.Release(true, 0, LockDriver.WAKE_NONE);
              }
              if (!next.repark(topic, generation)) {
                next.wake();
              }
              return FairDriver.parseRelease(reply);
            });
  }

  private static RedisMutex.Claim claimOf(WakeUps.Waiter waiter) {
    return (RedisMutex.Claim) ((Acquisition<?>) waiter).claim();
  }

  /** Whether a parked waiter can be handed the lock: a first acquisition of the same lock. */
  private static boolean takesHandOff(WakeUps.Waiter waiter, String holdKey) {
    if (!(waiter instanceof Acquisition)) {
      return false;
    }
    Acquisition.Claim<?> claim = ((Acquisition<?>) waiter).claim();
    return claim instanceof RedisMutex.Claim mutexClaim && mutexClaim.takesHandOffOf(holdKey);
  }
}
