package dev.warden.internal.quorum;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.lock.LockParts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The quorum lock (Redlock): the reentrant lock of one name on N independent deployments, one
 * {@code Warden} each, held while a majority of them hold it for this owner within its validity.
 *
 * <p>An acquisition sends a fixed-lease acquisition to every part at once, each bounded by a tenth
 * of the lease; it succeeds when a majority granted it and the validity (lease minus elapsed minus
 * drift of 1 % of the lease + 2 ms) is positive. The fencing token is the largest of the majority's
 * tokens, written back to every part taken, so that any later majority, which overlaps this one,
 * mints above it. Otherwise every part is given back (a call past its bound too, when it completes)
 * and the acquisition tries again after 100 to 300 ms, within the caller's wait. Holds without an
 * explicit lease take the smallest watchdog timeout of the parts' clients and are renewed on all
 * parts every third of it ({@link QuorumHandle}).
 *
 * <p>Thread-bound holds ({@code lock}, {@code tryLock}) belong to this object and the calling
 * thread, and are reentrant for that thread only; handles ({@code acquire}, {@code tryAcquire}) are
 * their own owners. {@code fencingToken()} gives the thread's hold's token. Conditions, {@code
 * forceUnlock}, {@code isLocked}, {@code remainTimeToLive} are not offered. Thread-safe.
 */
public final class QuorumLock implements DistributedLock {
  private final Quorum quorum;
  private final long watchdogLeaseMillis;
  private final Map<Thread, ThreadHold> threads = new ConcurrentHashMap<>();

  /** A thread's hold: the handle and how many times the thread entered it. */
  private static final class ThreadHold {
    final QuorumHandle handle;
    int count = 1; // only its thread touches it

    ThreadHold(QuorumHandle handle) {
      this.handle = handle;
    }
  }

  /**
   * Makes the quorum lock of {@code locks}, which must be reentrant locks of one name made by
   * distinct {@code Warden} instances.
   *
   * @throws NullPointerException if {@code locks} or one of them is null
   * @throws IllegalArgumentException if there are none, one is not a plain reentrant lock, the
   *     names differ, or a lock is given twice
   */
  public QuorumLock(DistributedLock... locks) {
    if (locks == null) {
      throw new NullPointerException("locks must not be null");
    }
    if (locks.length == 0) {
      throw new IllegalArgumentException("locks must not be empty");
    }
    List<DistributedLock> parts = new ArrayList<>();
    long watchdog = Long.MAX_VALUE;
    for (int i = 0; i < locks.length; i++) {
      DistributedLock lock = locks[i];
      if (lock == null) {
        throw new NullPointerException("locks[" + i + "] must not be null");
      }
      if (!LockParts.isReentrantLock(lock)) {
        throw new IllegalArgumentException(
            "locks[" + i + "] must be a reentrant lock of a Warden (Warden.lock(name)): " + lock);
      }
      if (!lock.getName().equals(locks[0].getName())) {
        throw new IllegalArgumentException(
            "locks["
                + i
                + "] must have the name of locks[0] ("
                + locks[0].getName()
                + "): "
                + lock.getName());
      }
      for (DistributedLock earlier : parts) {
        if (LockParts.scripts(earlier) == LockParts.scripts(lock)) {
          throw new IllegalArgumentException(
              "locks[" + i + "] comes from the same Warden as an earlier lock: " + lock);
        }
      }
      parts.add(lock);
      watchdog = Math.min(watchdog, LockParts.watchdogLeaseMillis(lock));
    }
    this.watchdogLeaseMillis = watchdog;
    String describe = "quorum lock " + locks[0].getName() + " on " + locks.length + " deployments";
    this.quorum = new Quorum(List.copyOf(parts), describe, Clock.SYSTEM);
  }

  @Override
  public String getName() {
    return quorum.describe();
  }

  // ---- thread-bound ----

  @Override
  public void lock() {
    Interrupts.uninterruptibly(() -> lockForThread(watchdogLeaseMillis, true, -1, false));
  }

  @Override
  public void lock(long leaseTime, TimeUnit unit) {
    long lease = Args.leaseMillis("leaseTime", leaseTime, unit);
    Interrupts.uninterruptibly(() -> lockForThread(lease, false, -1, false));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    lockForThread(watchdogLeaseMillis, true, -1, true);
  }

  @Override
  public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
    lockForThread(Args.leaseMillis("leaseTime", leaseTime, unit), false, -1, true);
  }

  @Override
  public boolean tryLock() {
    return Interrupts.uninterruptibly(() -> lockForThread(watchdogLeaseMillis, true, 0, false));
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Args.unit(unit);
    return lockForThread(watchdogLeaseMillis, true, Math.max(0, unit.toNanos(time)), true);
  }

  @Override
  public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime, unit);
    return lockForThread(Args.leaseMillis("leaseTime", leaseTime, unit), false, waitNanos, true);
  }

  private boolean lockForThread(
      long leaseMillis, boolean renewed, long waitNanos, boolean interruptible)
      throws InterruptedException {
    if (interruptible) {
      Interrupts.checkBefore(quorum.describe(), "acquiring");
    }
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine != null && !mine.handle.leaseLost().toCompletableFuture().isDone()) {
      mine.count++;
      return true;
    }
    QuorumHandle handle = quorum.acquire(leaseMillis, renewed, waitNanos, interruptible);
    if (handle == null) {
      return false;
    }
    threads.put(Thread.currentThread(), new ThreadHold(handle));
    return true;
  }

  /**
   * Gives back one hold of the calling thread; the last one releases every part.
   *
   * @throws IllegalMonitorStateException if the thread holds none
   * @throws dev.warden.LeaseExpiredException if the hold had been lost (then it is dropped)
   */
  @Override
  public void unlock() {
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine == null) {
      throw new IllegalMonitorStateException(
          quorum.describe() + ": not held by thread " + Thread.currentThread().getName());
    }
    if (--mine.count > 0) {
      return;
    }
    threads.remove(Thread.currentThread());
    mine.handle.close();
  }

  @Override
  public boolean isHeldByCurrentThread() {
    ThreadHold mine = threads.get(Thread.currentThread());
    return mine != null && mine.handle.isHeld();
  }

  @Override
  public int getHoldCount() {
    ThreadHold mine = threads.get(Thread.currentThread());
    return mine == null ? 0 : mine.count;
  }

  @Override
  public long fencingToken() {
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine == null) {
      throw new IllegalMonitorStateException(
          quorum.describe() + ": not held by thread " + Thread.currentThread().getName());
    }
    return mine.handle.fencingToken();
  }

  // ---- handles ----

  @Override
  public LockHandle acquire(Duration waitTime) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    QuorumHandle handle = quorum.acquire(watchdogLeaseMillis, true, waitNanos, true);
    if (handle == null) {
      throw new LockTimeoutException(quorum.describe() + ": not acquired within " + waitTime);
    }
    return handle;
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    return Optional.ofNullable(quorum.acquire(watchdogLeaseMillis, true, waitNanos, true));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime)
      throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    long lease = Args.leaseMillis("leaseTime", leaseTime);
    return Optional.ofNullable(quorum.acquire(lease, false, waitNanos, true));
  }

  /**
   * Acquires on a {@code warden-quorum} thread. Cancelling the future abandons the attempt: a hold
   * taken meanwhile is given back.
   */
  @Override
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime) {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    CompletableFuture<LockHandle> result = new CompletableFuture<>();
    Quorum.CALLS.execute(
        () -> {
          try {
            QuorumHandle handle = quorum.acquire(watchdogLeaseMillis, true, waitNanos, false);
            if (handle == null) {
              result.completeExceptionally(
                  new LockTimeoutException(
                      quorum.describe() + ": not acquired within " + waitTime));
            } else if (!result.complete(handle)) {
              handle.close(); // cancelled meanwhile
            }
          } catch (InterruptedException | RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  // ---- not offered ----

  private UnsupportedOperationException unsupported(String operation) {
    return new UnsupportedOperationException(
        quorum.describe()
            + ": "
            + operation
            + " is not offered by a quorum lock (it supports lock, tryLock, their lease variants,"
            + " unlock, isHeldByCurrentThread, getHoldCount, fencingToken and handles)");
  }

  @Override
  public boolean forceUnlock() {
    throw unsupported("forceUnlock");
  }

  @Override
  public boolean isLocked() {
    throw unsupported("isLocked");
  }

  @Override
  public long remainTimeToLive() {
    throw unsupported("remainTimeToLive");
  }

  @Override
  public Condition newCondition() {
    throw unsupported("newCondition");
  }

  @Override
  public Condition newCondition(String conditionName) {
    throw unsupported("newCondition");
  }

  @Override
  public String toString() {
    return quorum.describe();
  }
}
