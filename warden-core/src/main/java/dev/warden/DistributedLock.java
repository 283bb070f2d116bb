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
 * <p>Holds taken through the {@link Lock} methods belong to the calling thread of this {@link
 * Warden} instance; holds taken through {@link #acquire(Duration)} and its siblings belong to the
 * returned {@link LockHandle}. Without an explicit lease a hold is renewed by the lease keeper
 * until it is released; with one, it expires when the lease runs out, whatever the holder is doing.
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
 * <p>If Redis restarts or fails over without the lock key, a hold is lost: the lease keeper notices
 * at its next renewal (or at once when the connection comes back), {@link LockHandle#leaseLost()}
 * completes and the next {@link #unlock()} throws {@link LeaseExpiredException}.
 *
 * @since 0.2
 */
public interface DistributedLock extends Lock {

  /**
   * Returns the name this lock was created with.
   *
   * @return the lock's name
   */
  String getName();

  /**
   * Acquires the lock, waiting as long as it takes, with a fixed lease and no renewal.
   *
   * @param leaseTime how long the hold lasts; it is not renewed
   * @param unit the unit of {@code leaseTime}
   */
  void lock(long leaseTime, TimeUnit unit);

  /**
   * Acquires the lock with a fixed lease, waiting until it is free or the thread is interrupted.
   *
   * @param leaseTime how long the hold lasts; it is not renewed
   * @param unit the unit of {@code leaseTime}
   * @throws InterruptedException if interrupted while waiting; the lock is not taken then
   */
  void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Acquires the lock with a fixed lease, waiting at most {@code waitTime}; returns {@code false}
   * if another owner still holds it then.
   *
   * @param waitTime how long to wait for the lock at most
   * @param leaseTime how long the hold lasts; it is not renewed
   * @param unit the unit of {@code waitTime} and {@code leaseTime}
   * @return {@code true} if the lock was acquired, {@code false} if the wait ran out
   * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not
   *     positive
   * @throws WardenException if Redis did not answer in time; this method returns within the wait
   *     plus a small margin even when Redis is slow or down
   * @throws InterruptedException if interrupted while waiting; the lock is not taken then
   */
  boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Deletes the lock whoever holds it and wakes its waiters; returns true if it was locked. The
   * former holders find out through {@link LockHandle#leaseLost()} and a {@link
   * LeaseExpiredException} at release.
   *
   * @return {@code true} if the lock was held by anyone
   */
  boolean forceUnlock();

  /**
   * Returns whether any owner holds the lock now (one round trip).
   *
   * @return {@code true} if some owner holds the lock
   */
  boolean isLocked();

  /**
   * Returns whether the calling thread holds the lock, as Redis has it (one round trip).
   *
   * @return {@code true} if the calling thread holds the lock
   */
  boolean isHeldByCurrentThread();

  /**
   * Returns the calling thread's hold count as Redis has it; 0 if it holds none.
   *
   * @return the number of holds the calling thread has
   */
  int getHoldCount();

  /**
   * Returns the lock's remaining time to live in milliseconds; -2 when not locked, -1 no expiry.
   *
   * @return the time to live in milliseconds, or -2 or -1
   */
  long remainTimeToLive();

  /**
   * Returns the fencing token of the calling thread's hold: strictly greater than the token of
   * every earlier acquisition of this lock name by any owner. A reentrant acquisition keeps the
   * token of the outer hold.
   *
   * @return the fencing token of the calling thread's hold
   * @throws IllegalMonitorStateException if the calling thread holds no hold (also once it expired)
   */
  long fencingToken();

  /**
   * Returns the lock's default distributed condition.
   *
   * @return the condition, bound to this lock
   */
  @Override
  Condition newCondition();

  /**
   * Returns the named distributed condition; the same name is the same condition everywhere.
   *
   * @param conditionName the condition's name, unique within this lock
   * @return the condition, bound to this lock
   */
  Condition newCondition(String conditionName);

  /**
   * Acquires a hold owned by the returned handle, waiting at most {@code waitTime}.
   *
   * @param waitTime how long to wait for the lock at most
   * @return the handle that owns the hold; close it to release
   * @throws LockTimeoutException if another owner still holds the lock after {@code waitTime}
   * @throws InterruptedException if interrupted while waiting; the lock is not taken then
   */
  LockHandle acquire(Duration waitTime) throws InterruptedException;

  /**
   * Acquires a hold owned by the returned handle, or returns empty after {@code waitTime}.
   *
   * @param waitTime how long to wait for the lock at most
   * @return the handle that owns the hold, or empty if the wait ran out
   * @throws InterruptedException if interrupted while waiting; the lock is not taken then
   */
  Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException;

  /**
   * Acquires a hold owned by the returned handle with a fixed lease, or returns empty after {@code
   * waitTime}. The lease keeper never renews the hold: it ends after {@code leaseTime} unless the
   * handle {@linkplain LockHandle#extend(Duration) extends} it or is closed before. Suits work with
   * a known upper bound, such as a scheduled job that must never hold the lock past it.
   *
   * <pre>{@code
   * Optional<LockHandle> hold = lock.tryAcquire(Duration.ZERO, Duration.ofMinutes(5));
   * if (hold.isPresent()) {
   *   try (LockHandle h = hold.get()) {
   *     runJob();
   *   }
   * }
   * }</pre>
   *
   * @param waitTime how long to wait for the lock at most; zero tries once
   * @param leaseTime how long the hold lasts unless extended or released; positive, in whole
   *     milliseconds (rounded up)
   * @return the handle that owns the hold, or empty if the wait ran out
   * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not
   *     positive
   * @throws InterruptedException if interrupted while waiting; the lock is not taken then
   * @since 0.2
   */
  Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime)
      throws InterruptedException;

  /**
   * Starts acquiring a hold owned by the handle the future completes with. The future completes
   * exceptionally with {@link LockTimeoutException} when {@code waitTime} passes first. Cancelling
   * it abandons the attempt and releases the lock if it was taken meanwhile. Dependent stages run
   * on Warden's callback executor, never on a Redis I/O thread.
   *
   * @param waitTime how long to wait for the lock at most
   * @return a future of the handle that owns the hold
   */
  CompletableFuture<LockHandle> acquireAsync(Duration waitTime);

  /**
   * Starts acquiring a hold with a fixed lease, owned by the handle the future completes with: the
   * non-blocking form of {@link #tryAcquire(Duration, Duration)}. The lease keeper never renews the
   * hold; it ends after {@code leaseTime} unless the handle extends it or is closed before. The
   * future completes exceptionally with {@link LockTimeoutException} when {@code waitTime} passes
   * first. Cancelling it abandons the attempt and releases the lock if it was taken meanwhile.
   * Dependent stages run on Warden's callback executor, never on a Redis I/O thread.
   *
   * <p>The default fails with {@link UnsupportedOperationException}: the reentrant, fair, read and
   * write locks support it; the multi-lock and the quorum lock do not (yet).
   *
   * @param waitTime how long to wait for the lock at most; zero tries once
   * @param leaseTime how long the hold lasts unless extended or released; positive, in whole
   *     milliseconds (rounded up)
   * @return a future of the handle that owns the hold
   * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not
   *     positive
   * @throws UnsupportedOperationException if this kind of lock takes no fixed-lease handles
   * @since 0.2
   */
  default CompletableFuture<LockHandle> acquireAsync(Duration waitTime, Duration leaseTime) {
    throw new UnsupportedOperationException(
        getName() + ": this kind of lock takes no asynchronous fixed-lease handles");
  }
}
