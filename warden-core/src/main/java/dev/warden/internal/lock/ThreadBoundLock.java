package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.lease.Lease;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The {@link java.util.concurrent.locks.Lock} side of a {@link DistributedLock}, written once: the
 * seven {@code lock}/{@code tryLock} overloads check their arguments, check the interrupt flag
 * before an interruptible call and come down to one {@link #acquireForThread(Lease, long, boolean)}
 * hook, which each lock implements with its own algorithm (the reentrant lock's core, the
 * multi-lock's parts in order, the quorum lock's majority). The queries a composite lock cannot
 * answer ({@code forceUnlock}, {@code isLocked}, {@code remainTimeToLive}, conditions) throw {@link
 * UnsupportedOperationException} unless overridden.
 *
 * <p>One level only: what a lock does with its holds stays in the lock.
 */
public abstract class ThreadBoundLock implements DistributedLock {
  /** For the subclasses of this package and of the quorum package. */
  protected ThreadBoundLock() {}

  /** Names the lock in messages. */
  protected abstract String describe();

  /**
   * Says what the lock is and offers, for the message of what it does not offer: e.g. {@code "a
   * multi-lock (it supports lock, tryLock, ...)"}. A lock that offers everything keeps the default.
   */
  protected String offers() {
    return "this lock";
  }

  /** The lease of a thread-bound hold taken without one: renewed until it is released. */
  protected abstract Lease watchdogLease();

  /**
   * Acquires for the calling thread within {@code waitNanos} (negative: without limit); returns
   * false when the wait ran out. The interrupt flag was checked already when {@code interruptible}.
   *
   * @throws InterruptedException only if {@code interruptible}
   */
  protected abstract boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException;

  @Override
  public final void lock() {
    uninterruptibly(watchdogLease(), -1);
  }

  @Override
  public final void lock(long leaseTime, TimeUnit unit) {
    uninterruptibly(Lease.fixed(Args.leaseMillis("leaseTime", leaseTime, unit)), -1);
  }

  @Override
  public final void lockInterruptibly() throws InterruptedException {
    interruptibly(watchdogLease(), -1);
  }

  @Override
  public final void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
    interruptibly(Lease.fixed(Args.leaseMillis("leaseTime", leaseTime, unit)), -1);
  }

  @Override
  public final boolean tryLock() {
    return uninterruptibly(watchdogLease(), 0);
  }

  @Override
  public final boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Args.unit(unit);
    return interruptibly(watchdogLease(), Math.max(0, unit.toNanos(time)));
  }

  @Override
  public final boolean tryLock(long waitTime, long leaseTime, TimeUnit unit)
      throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime, unit);
    return interruptibly(Lease.fixed(Args.leaseMillis("leaseTime", leaseTime, unit)), waitNanos);
  }

  private boolean interruptibly(Lease lease, long waitNanos) throws InterruptedException {
    Interrupts.checkBefore(describe(), "acquiring");
    return acquireForThread(lease, waitNanos, true);
  }

  private boolean uninterruptibly(Lease lease, long waitNanos) {
    return Interrupts.uninterruptibly(() -> acquireForThread(lease, waitNanos, false));
  }

  // ---- what a lock made of other locks does not offer, unless it overrides it ----

  /** The exception for an operation this lock does not offer, naming what it offers instead. */
  protected final UnsupportedOperationException unsupported(String operation) {
    return new UnsupportedOperationException(
        describe() + ": " + operation + " is not offered by " + offers());
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
}
