package dev.warden;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant lock shared by every process that uses the same Redis and the same name.
 *
 * <p>Holds taken through the {@link Lock} methods belong to the calling thread of this
 * {@link Warden} instance; holds taken through {@link #acquire(Duration)} and its siblings belong
 * to the returned {@link LockHandle}. Without an explicit lease a hold is renewed by the lease
 * keeper until it is released; with one, it expires when the lease runs out, whatever the holder
 * is doing.
 *
 * <pre>{@code
 * DistributedLock lock = warden.lock("invoice-42");
 * lock.lock();
 * try {
 *   charge(invoice, lock.fencingToken());
 * } finally {
 *   lock.unlock();
 * }
 * }</pre>
 *
 * <p>Thread-safe. An uncontended acquisition and a release each cost one script call (one round
 * trip). A waiting acquirer sleeps until Redis pub/sub reports a release, re-checking at a bounded
 * interval and at once after the pub/sub connection reconnects.
 *
 * <p>If Redis restarts or fails over without the lock key, a hold is lost: the lease keeper
 * notices at its next renewal (or at once when the connection comes back), {@link
 * LockHandle#leaseLost()} completes and the next {@link #unlock()} throws {@link
 * LeaseExpiredException}.
 */
public interface DistributedLock extends Lock {

  /** Returns the name this lock was created with. */
  String getName();

  /** Acquires the lock, waiting as long as it takes, with a fixed lease and no renewal. */
  void lock(long leaseTime, TimeUnit unit);

  /** Acquires the lock with a fixed lease, waiting until it is free or the thread is interrupted. */
  void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Acquires the lock with a fixed lease, waiting at most {@code waitTime}; returns {@code false}
   * if another owner still holds it then.
   *
   * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not
   *     positive
   * @throws WardenException if Redis did not answer in time; this method returns within the wait
   *     plus a small margin even when Redis is slow or down
   */
  boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Deletes the lock whoever holds it and wakes its waiters; returns true if it was locked. The
   * former holders find out through {@link LockHandle#leaseLost()} and a {@link
   * LeaseExpiredException} at release.
   */
  boolean forceUnlock();

  /** Returns whether any owner holds the lock now (one round trip). */
  boolean isLocked();

  /** Returns whether the calling thread holds the lock, as Redis has it (one round trip). */
  boolean isHeldByCurrentThread();

  /** Returns the calling thread's hold count as Redis has it; 0 if it holds none. */
  int getHoldCount();

  /** Returns the lock's remaining time to live in milliseconds; -2 when not locked, -1 no expiry. */
  long remainTimeToLive();

  /**
   * Returns the fencing token of the calling thread's hold: strictly greater than the token of
   * every earlier acquisition of this lock name by any owner. A reentrant acquisition keeps the
   * token of the outer hold.
   *
   * @throws IllegalMonitorStateException if the calling thread holds no hold (also once it expired)
   */
  long fencingToken();

  /** Returns the lock's default distributed condition. */
  @Override
  Condition newCondition();

  /** Returns the named distributed condition; the same name is the same condition everywhere. */
  Condition newCondition(String conditionName);

  /**
   * Acquires a hold owned by the returned handle, waiting at most {@code waitTime}.
   *
   * @throws LockTimeoutException if another owner still holds the lock after {@code waitTime}
   */
  LockHandle acquire(Duration waitTime) throws InterruptedException;

  /** Acquires a hold owned by the returned handle, or returns empty after {@code waitTime}. */
  Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException;

  /**
   * Starts acquiring a hold owned by the handle the future completes with. The future completes
   * exceptionally with {@link LockTimeoutException} when {@code waitTime} passes first. Cancelling
   * it abandons the attempt and releases the lock if it was taken meanwhile. Dependent stages run
   * on Warden's callback executor, never on a Redis I/O thread.
   */
  CompletableFuture<LockHandle> acquireAsync(Duration waitTime);
}
