package dev.warden.internal.sync;

import dev.warden.LeasedSemaphore;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Ids;
import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The leased semaphore: a Redis hash with the number of free permits (and a mark when somebody
 * waits), and a sorted set of leased permit ids scored by when their lease ends, by the server's
 * clock; changed only by the leased-semaphore-*.lua scripts.
 *
 * <p><b>Expiry.</b> A permit whose lease has ended is free: {@link #availablePermits()} counts it
 * at once, and the next acquisition attempt returns it to the pool, at most 100 per call so that no
 * script's work grows with the number of leases. Nothing sweeps in the background: a waiter that
 * finds no permit free parks until the earliest lease ends (the attempt's reply says when), or a
 * release wakes it, or its recheck interval passes, whichever comes first; so an expired permit
 * reaches a waiter promptly without any message.
 *
 * <p><b>Ids.</b> A permit id is 128 random bits chosen by the client before the first attempt, so
 * an attempt sent again after a lost reply finds its own lease and takes nothing more, and ids
 * cannot be guessed by another client to release someone else's permit.
 *
 * <p>Waiters are not queued: each acquisition asks for one permit, so there is no large request to
 * starve, and a release wakes one waiter per process (see {@link
 * dev.warden.internal.wait.WakeMessage}).
 */
final class RedisLeasedSemaphore implements LeasedSemaphore {

  private final SyncKeys keys;
  private final SyncCalls calls;

  RedisLeasedSemaphore(SyncContext context, SyncKeys keys) {
    this.keys = keys;
    this.calls = new SyncCalls(context, keys);
  }

  @Override
  public boolean trySetPermits(int permits) {
    Args.notNegative("permits", permits);
    return Scripts.number(add("set", permits, "trySetPermits"), 0) == 1;
  }

  @Override
  public void addPermits(int delta) {
    if (delta == 0) {
      return;
    }
    List<Object> reply = add("add", delta, "addPermits");
    if (Scripts.number(reply, 0) < 0) {
      throw calls.beyondIntRange("delta", Scripts.number(reply, 1), delta);
    }
  }

  private List<Object> add(String operation, int permits, String operationName) {
    return calls.change(
        operationName,
        marker ->
            calls.run(
                SyncScripts.LEASED_SEMAPHORE_ADD,
                new String[] {keys.key(), marker, keys.key("leases")},
                operation,
                Integer.toString(permits),
                calls.markerMillis(),
                keys.channel(),
                calls.idleMillis()));
  }

  @Override
  public int availablePermits() {
    List<Object> reply =
        calls.query(calls.run(SyncScripts.LEASED_SEMAPHORE_COUNT, leaseKeys()), "availablePermits");
    return (int) Scripts.number(reply, 0);
  }

  // ---- acquiring ----

  @Override
  public String acquire(long leaseTime, TimeUnit unit) throws InterruptedException {
    long leaseMillis = Args.leaseMillis("leaseTime", leaseTime, unit);
    return calls.await(new Lease(leaseMillis, true), -1);
  }

  @Override
  public String tryAcquire() {
    return calls.tryOnce(new Lease(calls.context().settings().watchdogLeaseMillis(), false));
  }

  @Override
  public String tryAcquire(long waitTime, long leaseTime, TimeUnit unit)
      throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime, unit);
    long leaseMillis = Args.leaseMillis("leaseTime", leaseTime, unit);
    return calls.await(new Lease(leaseMillis, waitNanos > 0), waitNanos);
  }

  /** One acquisition's claim on a permit, for {@link Acquisition}. */
  private final class Lease extends SyncCalls.Claim<String> {
    private final String permitId = Ids.random128();
    private final long leaseMillis;
    private final boolean waits;

    Lease(long leaseMillis, boolean waits) {
      super(keys);
      this.leaseMillis = leaseMillis;
      this.waits = waits;
    }

    @Override
    public CompletableFuture<Outcome<String>> attempt(boolean othersWait) {
      return calls
          .run(
              SyncScripts.LEASED_SEMAPHORE_ACQUIRE,
              leaseKeys(),
              permitId,
              Long.toString(leaseMillis),
              waits ? "1" : "0",
              othersWait ? "1" : "0",
              Long.toString(Settings.UNSET_MARK_MILLIS),
              keys.channel(),
              calls.idleMillis())
          .thenApply(
              reply ->
                  Scripts.number(reply, 0) == 1
                      ? Outcome.granted(permitId)
                      : Outcome.busy(Scripts.number(reply, 1)));
    }

    @Override
    public CompletableFuture<?> rollback(String granted) {
      return giveBack(granted);
    }

    /** Releases the permit an attempt may have leased under this acquisition's id. */
    @Override
    public CompletableFuture<?> giveBackInDoubt() {
      return giveBack(permitId);
    }
  }

  // ---- releasing and renewing ----

  @Override
  public boolean tryRelease(String permitId) {
    Args.permitId(permitId);
    // one marker for every retry of this release: a retry that finds the permit gone after a lost
    // reply counts it released only if the lost run left the marker (it freed a live permit), not
    // when the lease had ended before
    String marker = keys.operation(Ids.random128());
    List<Object> reply = calls.retrying("release", () -> giveBack(permitId, marker), () -> {});
    return Scripts.number(reply, 0) == 1;
  }

  @Override
  public void release(String permitId) {
    if (!tryRelease(permitId)) {
      throw new IllegalArgumentException(
          "permitId is not a leased permit of "
              + keys.describe()
              + " (never issued, released already, or its lease ran out): '"
              + permitId
              + "'");
    }
  }

  @Override
  public boolean updateLeaseTime(String permitId, long leaseTime, TimeUnit unit) {
    Args.permitId(permitId);
    long leaseMillis = Args.leaseMillis("leaseTime", leaseTime, unit);
    List<Object> reply =
        calls.retrying(
            "updateLeaseTime",
            () ->
                calls.run(
                    SyncScripts.LEASED_SEMAPHORE_RENEW,
                    new String[] {keys.key("leases"), keys.key()},
                    permitId,
                    Long.toString(leaseMillis),
                    calls.idleMillis()),
            () -> {});
    return Scripts.number(reply, 0) == 1;
  }

  /** Releases the permit under a marker of its own (an acquisition's give-back, sent once). */
  private CompletableFuture<List<Object>> giveBack(String permitId) {
    return giveBack(permitId, keys.operation(Ids.random128()));
  }

  /** Releases the permit; {@code marker} is the same for every retry of one release. */
  private CompletableFuture<List<Object>> giveBack(String permitId, String marker) {
    return calls.run(
        SyncScripts.LEASED_SEMAPHORE_RELEASE,
        new String[] {keys.key(), keys.key("leases"), marker},
        permitId,
        keys.channel(),
        calls.markerMillis(),
        calls.idleMillis());
  }

  private String[] leaseKeys() {
    return new String[] {keys.key(), keys.key("leases")};
  }

  @Override
  public String toString() {
    return "RedisLeasedSemaphore[" + keys.name() + "]";
  }
}
