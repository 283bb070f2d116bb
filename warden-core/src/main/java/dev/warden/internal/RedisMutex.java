package dev.warden.internal;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The reentrant lock: a Redis hash of owner to hold count, changed only by the lock-*.lua scripts.
 *
 * <p>Owners: {@code <warden id>:<thread id>} for the thread-bound {@link
 * java.util.concurrent.locks.Lock} methods, {@code <warden id>:h<n>} for each {@link LockHandle}.
 * This client keeps a {@link Hold} per owner and lock (shared by every {@code RedisMutex} of the
 * name), which knows the hold count and token and whether the lease is known to be lost; Redis
 * stays the authority, and every script call carries the client's hold count so that a replayed
 * call changes nothing.
 */
final class RedisMutex implements DistributedLock {

  private final WardenRuntime runtime;
  private final LockDriver driver;
  private final HoldGuard guard;

  RedisMutex(WardenRuntime runtime, LockDriver driver) {
    this(runtime, driver, HoldGuard.NONE);
  }

  RedisMutex(WardenRuntime runtime, LockDriver driver, HoldGuard guard) {
    this.runtime = runtime;
    this.driver = driver;
    this.guard = guard;
  }

  /** A check made before every thread-bound acquisition, e.g. no write lock while reading. */
  interface HoldGuard {
    HoldGuard NONE = owner -> {};

    /** Throws if the owner may not acquire now. */
    void check(String owner);
  }

  @Override
  public String getName() {
    return driver.name();
  }

  LockDriver driver() {
    return driver;
  }

  WardenRuntime runtime() {
    return runtime;
  }

  // ---- thread-bound acquisition ----

  @Override
  public void lock() {
    acquireUninterruptibly(watchdogLease(), -1);
  }

  @Override
  public void lock(long leaseTime, TimeUnit unit) {
    acquireUninterruptibly(Args.leaseMillis("leaseTime", leaseTime, unit), -1);
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    acquireForThreadInterruptibly(watchdogLease(), -1);
  }

  @Override
  public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
    acquireForThreadInterruptibly(Args.leaseMillis("leaseTime", leaseTime, unit), -1);
  }

  @Override
  public boolean tryLock() {
    return acquireUninterruptibly(watchdogLease(), 0);
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Args.unit(unit);
    return acquireForThreadInterruptibly(watchdogLease(), Math.max(0, unit.toNanos(time)));
  }

  @Override
  public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime, unit);
    return acquireForThreadInterruptibly(Args.leaseMillis("leaseTime", leaseTime, unit), waitNanos);
  }

  long watchdogLease() {
    return -runtime.leaseKeeper().leaseMillis(); // negative: renewed by the lease keeper
  }

  private boolean acquireForThreadInterruptibly(long lease, long waitNanos)
      throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(driver.describe() + ": interrupted before acquiring");
    }
    return acquireForThread(lease, waitNanos, true);
  }

  private boolean acquireUninterruptibly(long lease, long waitNanos) {
    try {
      return acquireForThread(lease, waitNanos, false);
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible acquisition was interrupted", e);
    }
  }

  /**
   * Acquires for the calling thread. {@code lease} is in ms, negative for a watchdog-renewed lease
   * of that length; {@code waitNanos} negative waits forever.
   */
  boolean acquireForThread(long lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    String owner = threadOwner();
    Hold hold = holdBeforeAcquiring(owner);
    int heldBefore = hold == null ? 0 : hold.count();
    Granted granted =
        await(acquisition(owner, heldBefore, Math.abs(lease), waitNanos), interruptible);
    if (granted == null) {
      return false;
    }
    adopt(hold, owner, granted, lease);
    return true;
  }

  /**
   * Returns the owner's hold before a new acquisition, after the checks every acquisition makes: an
   * explicit lease that ran out as asked has ended; a hold known to be lost is reported; the lock
   * type's guard may refuse (no upgrade of a read lock).
   */
  Hold holdBeforeAcquiring(String owner) {
    Hold hold = runtime.holds().get(holdKey(owner));
    if (hold != null && hold.explicitLeaseRanOut()) {
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
  void adopt(Hold hold, String owner, Granted granted, long lease) {
    if (hold != null && granted.token() != hold.token) {
      Futures.awaitUninterruptibly(
          driver.release(owner, granted.redisCount()),
          driver.describe(),
          "release a re-entry into a lost hold");
      hold.markLost("the lock was taken afresh by a reentrant call", runtime.callbacks());
      throw leaseExpired(hold, "acquire again");
    }
    register(hold, owner, granted, lease);
  }

  /**
   * A successful attempt: the hold's token, the owner's hold count as this client counts it, the
   * count Redis reported (which a give-back must name), and when the attempt was sent.
   */
  record Granted(long token, int holdCount, int redisCount, long sentAtNanos) {}

  /** Starts acquiring for an owner; {@code waitNanos} negative waits forever. */
  private Acquisition<Granted> acquisition(
      String owner, int heldBefore, long leaseMillis, long waitNanos) {
    return new Acquisition<>(
            runtime, new Claim(owner, heldBefore, leaseMillis, waitNanos != 0), waitNanos)
        .start();
  }

  /** One owner's claim on this lock, for {@link Acquisition}. */
  final class Claim implements Acquisition.Claim<Granted> {
    private final String owner;
    private final int heldBefore;
    private final long leaseMillis;
    private final boolean willWait;
    private final String id;

    Claim(String owner, int heldBefore, long leaseMillis, boolean willWait) {
      this.id = runtime.newAcquisitionId();
      this.owner = owner;
      this.heldBefore = heldBefore;
      this.leaseMillis = leaseMillis;
      this.willWait = willWait;
    }

    @Override
    public String describe() {
      return driver.describe();
    }

    @Override
    public String channel() {
      return driver.channel();
    }

    @Override
    public CompletableFuture<Acquisition.Outcome<Granted>> attempt(boolean othersWait) {
      long sentAt = System.nanoTime();
      return driver
          .acquire(owner, id, heldBefore, leaseMillis, othersWait, willWait)
          .thenApply(
              reply ->
                  reply.acquired()
                      // the owner's own count: Redis may also count an abandoned acquisition of
                      // the same owner whose give-back is still on its way
                      ? Acquisition.Outcome.granted(
                          new Granted(reply.token(), heldBefore + 1, reply.holdCount(), sentAt))
                      : Acquisition.Outcome.busy(reply.retryAfterMillis()));
    }

    @Override
    public CompletableFuture<?> rollback(Granted granted) {
      runtime.reentrantHolders().remove(driver.holdKey(), owner);
      return driver
          .release(owner, granted.redisCount())
          .thenAccept(released -> wakeLocal(released.wake()));
    }

    @Override
    public String waiterId() {
      return driver.waiterId(owner);
    }

    String owner() {
      return owner;
    }

    LockDriver driver() {
      return driver;
    }

    long leaseMillis() {
      return leaseMillis;
    }

    String id() {
      return id;
    }

    /**
     * Whether another owner of this client holds the lock now (the reentrant lock only): then an
     * attempt would be refused, and that owner's release hands the lock over or wakes this client's
     * waiters, so a first acquisition can wait without asking Redis.
     */
    @Override
    public boolean heldLocally() {
      if (heldBefore != 0 || !willWait) {
        return false;
      }
      String holder = runtime.reentrantHolders().get(driver.holdKey());
      if (holder == null || holder.equals(owner)) {
        return false;
      }
      Hold hold = runtime.holds().get(holdKey(holder));
      if (hold == null) {
        return true; // handed over, not yet adopted by its thread
      }
      // a lost hold, or an explicit lease that ran out, holds nothing in Redis
      return hold.state() != Hold.State.LOST && !hold.explicitLeaseRanOut();
    }

    /** Whether a release of that lock may hand it straight to this claim. */
    boolean takesHandOffOf(String holdKey) {
      return heldBefore == 0 && willWait && driver.holdKey().equals(holdKey);
    }

    @Override
    // FutureReturnValueIgnored: leaving the queue is best effort and nothing waits for it (the queue's beats drop a silent waiter)
    @SuppressWarnings("FutureReturnValueIgnored")
    public void finished(boolean granted) {
      if (!granted && willWait) {
        driver.leave(owner); // a queue the waiter joined must not keep it
      }
    }
  }

  private <T> T await(Acquisition<T> acquisition, boolean interruptible)
      throws InterruptedException {
    return Acquisitions.await(acquisition, driver.describe(), interruptible);
  }

  private Hold register(Hold existing, String owner, Granted granted, long lease) {
    Hold hold = existing;
    if (hold == null) {
      hold =
          new Hold(
              driver,
              owner,
              granted.token(),
              granted.holdCount(),
              lease,
              granted.sentAtNanos() + TimeUnit.MILLISECONDS.toNanos(Math.abs(lease)));
      runtime.holds().put(holdKey(owner), hold);
      if (driver instanceof ReentrantDriver) {
        runtime.reentrantHolders().put(driver.holdKey(), owner);
      }
    } else {
      hold.count(granted.holdCount());
      hold.extendLeaseDeadline(
          granted.sentAtNanos() + TimeUnit.MILLISECONDS.toNanos(Math.abs(lease)));
    }
    if (lease < 0 && !hold.renewed()) {
      hold.renewed(true);
      runtime.leaseKeeper().add(hold);
    }
    return hold;
  }

  // ---- release ----

  @Override
  public void unlock() {
    String owner = threadOwner();
    Hold hold = runtime.holds().get(holdKey(owner));
    if (hold == null) {
      throw notHeldByCurrentThread(owner, "");
    }
    release(hold);
  }

  /**
   * Gives back one hold: blocks for the script's reply, retrying transient failures for up to the
   * command timeout. A release whose earlier attempt had an unknown outcome, and that now finds the
   * hold gone, counts as done: that earlier attempt released it.
   */
  void release(Hold hold) {
    if (!hold.beginRelease()) {
      throw leaseExpired(hold, "unlock");
    }
    int heldBefore = hold.count();
    if (heldBefore == 1
        && driver instanceof ReentrantDriver reentrant
        && HandOff.handOff(runtime, reentrant, hold)) {
      forget(hold);
      hold.endRelease(true);
      return;
    }
    LockDriver.Release reply;
    try {
      reply = releaseWithRetries(hold, heldBefore);
    } catch (RuntimeException e) {
      hold.endRelease(false);
      throw e;
    }
    boolean released = reply.held() || (hold.releaseInDoubt() && heldBefore == 1);
    if (!released) {
      hold.lostAtRelease(
          "the lock expired, was force-unlocked, or was lost with Redis data", runtime.callbacks());
      throw leaseExpired(hold, "unlock");
    }
    hold.releaseInDoubt(false);
    int remaining = heldBefore - 1; // this owner's own view; see Claim.attempt
    if (remaining > 0) {
      hold.count(remaining);
      hold.endRelease(false);
      return;
    }
    forget(hold);
    hold.endRelease(true);
    wakeLocal(reply.wake());
  }

  /** Hands the lock to a waiter of this client at once, without waiting for the message. */
  private void wakeLocal(String wake) {
    runtime.wakeUps().releasedLocally(driver.channel(), wake);
  }

  private LockDriver.Release releaseWithRetries(Hold hold, int heldBefore) {
    return Futures.awaitRetrying(
        runtime,
        driver.describe(),
        "unlock",
        () ->
            heldBefore == 1 && driver instanceof FairDriver fair
                ? HandOff.releaseToHead(runtime, fair, hold.owner)
                : driver.release(hold.owner, heldBefore),
        // it may have run: a later "not held" means it did
        () -> hold.releaseInDoubt(true));
  }

  private void forget(Hold hold) {
    runtime.holds().remove(holdKey(hold.owner), hold);
    runtime.reentrantHolders().remove(driver.holdKey(), hold.owner);
    if (hold.renewed()) {
      runtime.leaseKeeper().remove(hold);
    }
  }

  /**
   * Consumes one local hold of a lost lease and returns the exception that says so; the record is
   * forgotten once its last hold was given back.
   */
  private LeaseExpiredException leaseExpired(Hold hold, String operation) {
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
            + hold.owner
            + " (fencing token "
            + hold.token
            + ") was lost before: "
            + hold.lostReason());
  }

  @Override
  public boolean forceUnlock() {
    boolean wasLocked =
        Futures.awaitUninterruptibly(driver.forceRelease(), driver.describe(), "forceUnlock");
    String caller = threadOwner();
    for (Hold hold : runtime.holds().values()) {
      if (!hold.driver.holdKey().equals(driver.holdKey())) {
        continue;
      }
      if (hold.owner.equals(caller)) {
        forget(hold); // the caller knows: its own hold simply ended
      } else if (hold.markLost("the lock was force-unlocked", runtime.callbacks())
          && hold.renewed()) {
        runtime.leaseKeeper().remove(hold); // its record stays, so its unlock() can tell
      }
    }
    return wasLocked;
  }

  // ---- queries ----

  @Override
  public boolean isLocked() {
    return query(driver.isLocked(), "isLocked");
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return isHeldBy(threadOwner());
  }

  boolean isHeldBy(String owner) {
    return query(driver.holdCount(owner), "isHeld") > 0;
  }

  @Override
  public int getHoldCount() {
    return query(driver.holdCount(threadOwner()), "getHoldCount");
  }

  @Override
  public long remainTimeToLive() {
    return query(driver.remainTimeToLive(), "remainTimeToLive");
  }

  @Override
  public long fencingToken() {
    String owner = threadOwner();
    Long token = query(driver.token(owner), "fencingToken");
    if (token == null) {
      throw notHeldByCurrentThread(owner, ": no fencing token");
    }
    return token;
  }

  private <T> T query(CompletableFuture<T> reply, String operation) {
    return Futures.awaitUninterruptibly(reply, driver.describe(), operation);
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
    return new RedisCondition(
        runtime,
        this,
        driver.holdKey(),
        driver.describe(),
        Args.named("conditionName", conditionName));
  }

  /** The calling thread's hold, or null. */
  Hold currentHold() {
    return runtime.holds().get(holdKey(threadOwner()));
  }

  /** Gives back the one hold left after cond-enqueue.lua, with this lock's own release. */
  void releaseForAwait(Hold hold) {
    hold.count(1);
    release(hold);
  }

  /** Takes the lock again after a condition wait, with the hold count the thread had. */
  void reacquireAfterAwait(int count, Hold before) {
    long lease = before.renewed() ? watchdogLease() : before.leaseMillis;
    for (int i = 0; i < count; i++) {
      acquireUninterruptibly(lease, -1);
    }
  }

  // ---- handles ----

  @Override
  public LockHandle acquire(Duration waitTime) throws InterruptedException {
    return tryAcquire(waitTime)
        .orElseThrow(
            () ->
                new LockTimeoutException(
                    driver.describe() + ": still held by another owner after waiting " + waitTime));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    if (Thread.interrupted()) {
      throw new InterruptedException(driver.describe() + ": interrupted before acquiring");
    }
    String owner = runtime.newHandleOwner();
    Granted granted =
        await(acquisition(owner, 0, runtime.leaseKeeper().leaseMillis(), waitNanos), true);
    return granted == null ? Optional.empty() : Optional.of(newHandle(owner, granted));
  }

  @Override
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime) {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    String owner = runtime.newHandleOwner();
    Acquisition<Granted> acquisition =
        acquisition(owner, 0, runtime.leaseKeeper().leaseMillis(), waitNanos);
    CompletableFuture<LockHandle> handle = new CompletableFuture<>();
    // cancelling the caller's future abandons the acquisition; a grant that arrives after that is
    // released by the acquisition itself, and one that arrived before is released below
    handle.whenComplete(
        (ignored, failure) -> {
          if (handle.isCancelled()) {
            acquisition.result.cancel(false);
          }
        });
    acquisition.result.whenComplete(
        (granted, failure) -> {
          if (failure != null) {
            Throwable cause = Failures.unwrap(failure);
            if (!(cause instanceof CancellationException)) {
              runtime
                  .callbacks()
                  .execute(
                      () ->
                          handle.completeExceptionally(
                              Failures.forCaller(driver.describe(), "acquire", cause)));
            }
            return;
          }
          if (granted == null) {
            runtime
                .callbacks()
                .execute(
                    () ->
                        handle.completeExceptionally(
                            new LockTimeoutException(
                                driver.describe()
                                    + ": still held by another owner after waiting "
                                    + waitTime)));
            return;
          }
          MutexHandle made = newHandle(owner, granted);
          runtime
              .callbacks()
              .execute(
                  () -> {
                    if (!handle.complete(made)) {
                      made.closeQuietly();
                    }
                  });
        });
    return handle;
  }

  private MutexHandle newHandle(String owner, Granted granted) {
    return new MutexHandle(this, register(null, owner, granted, watchdogLease()));
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

  String threadOwner() {
    return runtime.id() + ":" + Thread.currentThread().getId();
  }

  private String holdKey(String owner) {
    return driver.holdKey() + " " + owner;
  }

  @Override
  public String toString() {
    return "RedisMutex[" + driver.name() + "]";
  }
}
