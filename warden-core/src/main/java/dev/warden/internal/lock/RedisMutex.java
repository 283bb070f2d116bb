package dev.warden.internal.lock;

import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.redis.Calls;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;

/**
 * A lock of any type (reentrant, fair, read, write), as users see it: the API over one {@link
 * LockCore} and its driver.
 *
 * <p>Owners: {@code <warden id>:<thread id>} for the thread-bound {@link
 * java.util.concurrent.locks.Lock} methods, {@code <warden id>:h<n>} for each {@link LockHandle}.
 * This client keeps a {@link Hold} per owner and lock (shared by every {@code RedisMutex} of the
 * name) in its {@link Holds}.
 */
final class RedisMutex extends ThreadBoundLock {
  private final LockCore core;
  private final LockDriver driver;

  RedisMutex(LockContext context, LockDriver driver, LockCore.Guard guard) {
    this.core = new LockCore(context, driver, guard);
    this.driver = driver;
  }

  @Override
  public String getName() {
    return driver.name();
  }

  LockCore core() {
    return core;
  }

  // ---- thread-bound acquisition (the overloads: ThreadBoundLock) ----

  @Override
  protected String describe() {
    return driver.describe();
  }

  @Override
  protected Lease watchdogLease() {
    return core.watchdogLease();
  }

  @Override
  protected boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    return core.acquireForThread(lease, waitNanos, interruptible);
  }

  // ---- release ----

  @Override
  public void unlock() {
    String owner = core.context().owners().currentThread();
    Hold hold = core.hold(owner);
    if (hold == null) {
      throw notHeldByCurrentThread(owner, "");
    }
    core.release(hold);
  }

  @Override
  public boolean forceUnlock() {
    boolean wasLocked =
        Calls.awaitUninterruptibly(driver.forceRelease(), driver.describe(), "forceUnlock");
    core.forceUnlocked(core.context().owners().currentThread());
    return wasLocked;
  }

  // ---- queries ----

  @Override
  public boolean isLocked() {
    return query(driver.queries().isLocked(), "isLocked");
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return isHeldBy(core.context().owners().currentThread());
  }

  boolean isHeldBy(String owner) {
    return query(driver.queries().holdCount(owner), "isHeld") > 0;
  }

  /** Whether the owner holds this lock, asked without blocking (the raw reply's future). */
  CompletableFuture<Boolean> isHeldByAsync(String owner) {
    return driver.queries().holdCount(owner).thenApply(count -> count > 0);
  }

  @Override
  public int getHoldCount() {
    return query(
        driver.queries().holdCount(core.context().owners().currentThread()), "getHoldCount");
  }

  @Override
  public long remainTimeToLive() {
    return query(driver.queries().remainTimeToLive(), "remainTimeToLive");
  }

  @Override
  public long fencingToken() {
    String owner = core.context().owners().currentThread();
    Long token = query(driver.queries().token(owner), "fencingToken");
    if (token == null) {
      throw notHeldByCurrentThread(owner, ": no fencing token");
    }
    return token;
  }

  private <T> T query(CompletableFuture<T> reply, String operation) {
    return Calls.awaitUninterruptibly(reply, driver.describe(), operation);
  }

  // ---- conditions ----

  @Override
  public Condition newCondition() {
    return newCondition("default");
  }

  @Override
  public Condition newCondition(String conditionName) {
    if (!driver.supportsConditions()) {
      throw new UnsupportedOperationException(driver.describe() + " has no conditions");
    }
    return new RedisCondition(core, Args.named("conditionName", conditionName));
  }

  // ---- handles ----

  @Override
  public LockHandle acquire(Duration waitTime) throws InterruptedException {
    return tryAcquire(waitTime).orElseThrow(() -> timedOut(waitTime));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    Interrupts.checkBefore(driver.describe(), "acquiring");
    String owner = core.context().owners().newHandle();
    if (core.context().settings().replication() != null) {
      return ReplicaCheck.forHandle(this, owner, core.watchdogLease(), waitNanos);
    }
    Granted granted =
        core.acquisition(owner, 0, core.watchdogLease().millis(), waitNanos).await(true);
    return granted == null ? Optional.empty() : Optional.of(newHandle(owner, granted));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime)
      throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    Lease lease = Lease.fixed(Args.leaseMillis("leaseTime", leaseTime));
    Interrupts.checkBefore(driver.describe(), "acquiring");
    String owner = core.context().owners().newHandle();
    if (core.context().settings().replication() != null) {
      return ReplicaCheck.forHandle(this, owner, lease, waitNanos);
    }
    Granted granted = core.acquisition(owner, 0, lease.millis(), waitNanos).await(true);
    return granted == null
        ? Optional.empty()
        : Optional.of(new MutexHandle(this, core.adopt(null, owner, granted, lease)));
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime) {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    String owner = core.context().owners().newHandle();
    return MutexHandle.whenAcquired(
        this,
        core.acquisition(owner, 0, core.watchdogLease().millis(), waitNanos),
        granted -> newHandle(owner, granted),
        () -> timedOut(waitTime));
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime, Duration leaseTime) {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    Lease lease = Lease.fixed(Args.leaseMillis("leaseTime", leaseTime));
    String owner = core.context().owners().newHandle();
    return MutexHandle.whenAcquired(
        this,
        core.acquisition(owner, 0, lease.millis(), waitNanos),
        granted -> new MutexHandle(this, core.adopt(null, owner, granted, lease)),
        () -> timedOut(waitTime));
  }

  private MutexHandle newHandle(String owner, Granted granted) {
    return new MutexHandle(this, core.adopt(null, owner, granted, core.watchdogLease()));
  }

  private LockTimeoutException timedOut(Duration waitTime) {
    return new LockTimeoutException(
        driver.describe() + ": still held by another owner after waiting " + waitTime);
  }

  // ---- owners ----

  private IllegalMonitorStateException notHeldByCurrentThread(String owner, String detail) {
    return new IllegalMonitorStateException(
        driver.describe()
            + " is not held by thread '"
            + Thread.currentThread().getName()
            + "' (owner "
            + owner
            + ")"
            + detail);
  }

  @Override
  public String toString() {
    return "RedisMutex[" + driver.name() + "]";
  }
}
