package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The reentrant lock's data and scripts: lock-*.lua on a hash of owner to hold count. */
final class ReentrantDriver implements LockDriver {
  private final WardenRuntime runtime;
  private final LockKeys keys;
  private final Scripts scripts;

  ReentrantDriver(WardenRuntime runtime, LockKeys keys) {
    this.runtime = runtime;
    this.keys = keys;
    this.scripts = runtime.scripts();
  }

  @Override
  public LockKeys keys() {
    return keys;
  }

  @Override
  public WardenRuntime runtime() {
    return runtime;
  }

  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait) {
    return scripts
        .run(
            Scripts.LOCK_ACQUIRE,
            new String[] {keys.lock(), keys.fence()},
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            othersWait ? "1" : "0",
            runtime.fenceRetentionMillis(),
            acquisitionId,
            runtime.ownerPrefix(),
            willWait ? "1" : "0")
        .thenApply(ReentrantDriver::attempt);
  }

  /** Parses {1, token, holdCount} or {0, retryAfterMillis}. */
  static Attempt attempt(List<Object> reply) {
    return Scripts.number(reply, 0) == 1
        ? Attempt.acquired(Scripts.number(reply, 1), (int) Scripts.number(reply, 2))
        : Attempt.busy(Scripts.number(reply, 1));
  }

  /**
   * Hands the owner's last hold to another owner in one step (lock-transfer.lua); the reply is {1,
   * token, othersWait} when handed over, {0} when the owner held no hold, {2} when it held more
   * than one.
   */
  CompletableFuture<List<Object>> transfer(
      String from, String to, long toLeaseMillis, String toAcquisitionId) {
    return scripts.run(
        Scripts.LOCK_TRANSFER,
        new String[] {keys.lock(), keys.fence()},
        from,
        to,
        Long.toString(toLeaseMillis),
        toAcquisitionId,
        runtime.fenceRetentionMillis());
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return scripts
        .run(
            Scripts.LOCK_RELEASE,
            new String[] {keys.lock()},
            owner,
            Integer.toString(heldBefore),
            keys.channel(),
            runtime.wakeUps().ownReleaseMessage())
        .thenApply(
            reply ->
                Scripts.number(reply, 0) == 1
                    ? new Release(true, (int) Scripts.number(reply, 1), WAKE_ONE)
                    : new Release(false, 0, WAKE_ONE));
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(Scripts.LOCK_FORCE_RELEASE, new String[] {keys.lock()}, keys.channel())
        .thenApply(reply -> Scripts.number(reply, 0) == 1);
  }
}
