package dev.warden.integration;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.WardenException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock {@link WardenLockRegistry#obtain(Object)} returns: a view of one Warden lock whose holds
 * are {@link LockHandle}s kept per thread in the registry (see the registry's class documentation
 * for the semantics). Holds no state of its own but the time it was last used, so a lock the cache
 * dropped still works and sees the same holds as the one that replaced it.
 */
final class WardenRegistryLock implements DistributedLock {
  /**
   * Long enough to be "until acquired" for {@code lock()}; the wait is saturated, not overflowed.
   */
  private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

  private final WardenLockRegistry registry;
  private final String key;
  private final dev.warden.DistributedLock lock;
  private volatile long lastUsedNanos;

  WardenRegistryLock(WardenLockRegistry registry, String key, dev.warden.DistributedLock lock) {
    this.registry = registry;
    this.key = key;
    this.lock = lock;
    touch();
  }

  String key() {
    return key;
  }

  void touch() {
    lastUsedNanos = System.nanoTime();
  }

  long lastUsedNanos() {
    return lastUsedNanos;
  }

  /**
   * Acquires the lock, waiting as long as it takes; the lease keeper renews the hold until unlock.
   * An interrupt does not stop the wait; the thread's interrupt flag is set again on return.
   *
   * @throws LeaseExpiredException if the calling thread already held the lock and its lease ran out
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public void lock() {
    lockUninterruptibly(null);
  }

  /**
   * Acquires the lock, waiting as long as it takes, with a fixed lease of {@code ttl} that nothing
   * renews (but {@link WardenLockRegistry#renewLock(Object, Duration)}).
   *
   * @param ttl the hold's lease; positive
   * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
   * @throws LeaseExpiredException if the calling thread already held the lock and its lease ran out
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public void lock(Duration ttl) {
    lockUninterruptibly(requirePositive(ttl));
  }

  private void lockUninterruptibly(Duration ttl) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          if (acquire(FOREVER, ttl, true)) {
            return;
          }
        } catch (InterruptedException e) {
          interrupted = true; // Lock.lock() is not interruptible; the flag is restored below
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Acquires the lock, waiting until it is free or the thread is interrupted; the lease keeper
   * renews the hold until unlock.
   *
   * @throws InterruptedException if interrupted before or while waiting; the lock is not taken then
   * @throws LeaseExpiredException if the calling thread already held the lock and its lease ran out
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    acquire(FOREVER, null, true);
  }

  /**
   * Acquires the lock if it is free now (or already the calling thread's, as Redis confirms).
   *
   * @return {@code true} if acquired; {@code false} if another owner holds it, the calling thread's
   *     earlier hold was lost, or the thread was interrupted (its flag is set again)
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public boolean tryLock() {
    try {
      return acquire(Duration.ZERO, null, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Acquires the lock, waiting at most {@code time}; a wait of zero or less does not wait. The
   * lease keeper renews the hold until unlock.
   *
   * @param time how long to wait at most
   * @param unit the unit of {@code time}
   * @return {@code true} if acquired; {@code false} if the wait ran out, or the calling thread's
   *     earlier hold was lost
   * @throws InterruptedException if interrupted before or while waiting; the lock is not taken then
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    return acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null, false);
  }

  /**
   * Acquires the lock with a fixed lease of {@code ttl}, waiting at most {@code waitTime}; a wait
   * of zero or less does not wait.
   *
   * @param waitTime how long to wait at most
   * @param ttl the hold's lease; positive; nothing renews it (but {@link
   *     WardenLockRegistry#renewLock(Object, Duration)})
   * @return {@code true} if acquired; {@code false} if the wait ran out, or the calling thread's
   *     earlier hold was lost
   * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
   * @throws InterruptedException if interrupted before or while waiting; the lock is not taken then
   * @throws WardenException if Redis could not be reached
   */
  @Override
  public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
    Objects.requireNonNull(waitTime, "waitTime must not be null");
    Duration wait = waitTime.isNegative() ? Duration.ZERO : waitTime;
    return acquire(wait, requirePositive(ttl), false);
  }

  /**
   * Takes a hold for the calling thread: a reentrant one if it holds the lock (after Redis
   * confirmed the hold), else a new handle. {@code ttl} null means a lease renewed by the lease
   * keeper.
   *
   * @param mustAcquire whether the caller cannot return false (lock, lockInterruptibly): a lost
   *     outer hold is then thrown as {@link LeaseExpiredException}
   */
  private boolean acquire(Duration wait, Duration ttl, boolean mustAcquire)
      throws InterruptedException {
    WardenLockRegistry.Owner owner = registry.owner(key);
    Hold hold = registry.holdOf(owner);
    if (hold != null) {
      if (!hold.lost) {
        // Asked every time, as RedisLockRegistry does: LockRegistryLeaderInitiator re-tries the
        // lock it leads with at each heartbeat and must hear false once the lease is gone.
        if (hold.handle.isHeld()) {
          hold.count++;
          touch();
          return true;
        }
        hold.lost = true;
        if (mustAcquire) {
          throw expired("acquiring it again");
        }
        return false;
      }
      // The loss was reported already (a false from tryLock, or an exception): start afresh.
      registry.dropHold(owner);
    }
    Optional<LockHandle> handle = ttl == null ? lock.tryAcquire(wait) : lock.tryAcquire(wait, ttl);
    if (handle.isEmpty()) {
      return false;
    }
    registry.putHold(owner, new Hold(handle.get(), ttl));
    touch();
    return true;
  }

  /**
   * Releases one hold of the calling thread; the last one releases the lock in Redis.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock
   * @throws LeaseExpiredException (an {@link IllegalMonitorStateException}) at the last unlock of a
   *     hold whose lease had run out or that was force-unlocked: the work done under it may not
   *     have been exclusive
   * @throws WardenException if Redis could not be reached; the thread still holds the lock, and
   *     calling unlock again is safe
   */
  @Override
  public void unlock() {
    WardenLockRegistry.Owner owner = registry.owner(key);
    Hold hold = registry.holdOf(owner);
    if (hold == null) {
      throw new IllegalMonitorStateException(
          "lock '" + lock.getName() + "' is not held by thread " + Thread.currentThread());
    }
    if (hold.count > 1) {
      hold.count--;
      return;
    }
    registry.dropHold(owner);
    if (hold.lost) {
      LeaseExpiredException expired = expired("unlocking it");
      try {
        hold.handle.close();
      } catch (RuntimeException alsoFailed) {
        expired.addSuppressed(alsoFailed); // known lost already: the loss is what the caller hears
      }
      throw expired;
    }
    try {
      hold.handle.close();
    } catch (WardenException unreachable) {
      registry.putHold(owner, hold); // still held: the caller may unlock again
      throw unreachable;
    }
  }

  /**
   * Throws {@link UnsupportedOperationException}, as Spring Integration's {@code RedisLockRegistry}
   * does: Warden's distributed conditions belong to its thread-bound holds, and this lock's holds
   * are handles.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException(
        "conditions are not supported by WardenLockRegistry's locks; use Warden.lock("
            + lock.getName()
            + ").newCondition() with Warden's own lock");
  }

  private LeaseExpiredException expired(String action) {
    return new LeaseExpiredException(
        "lock '"
            + lock.getName()
            + "': the hold of thread "
            + Thread.currentThread()
            + " was lost (its lease ran out or it was force-unlocked) before "
            + action
            + "; the work done under it may not have been exclusive");
  }

  static Duration requirePositive(Duration ttl) {
    if (ttl == null || ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    return ttl;
  }

  @Override
  public String toString() {
    return "WardenRegistryLock[" + lock.getName() + "]";
  }

  /**
   * One thread's hold: the handle that owns it in Redis and the thread's count of reentrant holds.
   * Read and written only by the owning thread.
   */
  static final class Hold {
    final LockHandle handle;
    int count = 1;
    Duration lease; // null: renewed by the lease keeper
    boolean lost;

    Hold(LockHandle handle, Duration lease) {
      this.handle = handle;
      this.lease = lease;
    }
  }
}
