package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * Hands the reentrant lock straight from a thread giving back its last hold to a parked waiter
 * of the same client (lock-transfer.lua): one script call instead of a release and an
 * acquisition, and FIFO among the client's threads. After {@link #IN_A_ROW} hand-offs in a row,
 * one real release lets other clients' waiters compete.
 *
 * <p>Runs on the releasing (caller) thread. Only a parked waiter is taken, atomically off its
 * topic, so no attempt of its own is in flight; a waiter that gave up meanwhile gives the hold
 * back through its acquisition.
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
    if (topic == null) {
      return false;
    }
    WakeUps.Waiter taken = topic.claim(waiter -> takesHandOff(waiter, driver.holdKey()));
    if (taken == null) {
      return false;
    }
    @SuppressWarnings("unchecked")
    Acquisition<RedisMutex.Granted> next = (Acquisition<RedisMutex.Granted>) taken;
    if (!topic.nextHandOff(IN_A_ROW)) {
      next.wake();
      return false;
    }
    RedisMutex.Claim claim = (RedisMutex.Claim) next.claim();
    long sentAt = System.nanoTime();
    List<Object> reply;
    try {
      reply = driver.transfer(hold.owner, claim.owner(), claim.leaseMillis(), claim.id()).join();
    } catch (CompletionException | CancellationException e) {
      // it may have run: then the waiter's own attempt finds its hold, and the release that
      // follows finds this owner's hold gone
      hold.releaseInDoubt(true);
      next.wake();
      return false;
    }
    if (Scripts.number(reply, 0) != 1) {
      next.wake();
      return false;
    }
    next.grant(new RedisMutex.Granted(Scripts.number(reply, 1), 1, 1, sentAt));
    return true;
  }

  /** Whether a parked waiter can be handed the lock: a first acquisition of the same lock. */
  private static boolean takesHandOff(WakeUps.Waiter waiter, String holdKey) {
    if (!(waiter instanceof Acquisition)) {
      return false;
    }
    Acquisition.Claim<?> claim = ((Acquisition<?>) waiter).claim();
    return claim instanceof RedisMutex.Claim && ((RedisMutex.Claim) claim).takesHandOffOf(holdKey);
  }
}
