package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The write side of a read-write lock: a hash of owner to hold count like the reentrant lock,
 * taken only while no other owner holds a live read hold. A waiting writer is registered (with a
 * heartbeat, like a fair-lock waiter) so that new readers queue behind it: writers are not
 * starved by overlapping readers.
 */
final class WriteDriver implements LockDriver {
  private final WardenRuntime runtime;
  private final ReadWriteKeys keys;
  private final Scripts scripts;

  WriteDriver(WardenRuntime runtime, ReadWriteKeys keys) {
    this.runtime = runtime;
    this.keys = keys;
    this.scripts = runtime.scripts();
  }

  @Override
  public WardenRuntime runtime() {
    return runtime;
  }

  @Override
  public LockKeys keys() {
    return keys.base();
  }

  @Override
  public String describe() {
    return "write lock '" + keys.name() + "'";
  }

  @Override
  public String holdKey() {
    return keys.write();
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
            Scripts.RW_WRITE_ACQUIRE,
            keys.acquireKeys(),
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            runtime.fenceRetentionMillis(),
            willWait ? "1" : "0",
            Long.toString(FairDriver.HEARTBEAT_TIMEOUT_MILLIS),
            acquisitionId)
        .thenApply(
            reply -> {
              if (Scripts.number(reply, 0) < 0) {
                throw new IllegalMonitorStateException(
                    describe() + ": " + owner + " holds read holds: a read lock cannot be upgraded");
              }
              Attempt attempt = ReentrantDriver.attempt(reply);
              // a waiting writer's attempts are its heartbeat
              return attempt.acquired()
                  ? attempt
                  : Attempt.busy(heartbeat(attempt.retryAfterMillis()));
            });
  }

  static long heartbeat(long retryAfterMillis) {
    return retryAfterMillis > 0
        ? Math.min(retryAfterMillis, FairDriver.HEARTBEAT_MILLIS)
        : FairDriver.HEARTBEAT_MILLIS;
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return scripts
        .run(
            Scripts.RW_WRITE_RELEASE,
            new String[] {keys.write(), keys.wanted()},
            owner,
            Integer.toString(heldBefore),
            keys.channel())
        .thenApply(ReadDriver::release);
  }

  @Override
  public CompletableFuture<?> leave(String owner) {
    return scripts.run(
        Scripts.RW_WRITER_LEAVE, new String[] {keys.writers(), keys.wanted()}, owner, keys.channel());
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(Scripts.RW_FORCE_RELEASE, new String[] {keys.write()}, keys.channel())
        .thenApply(reply -> Scripts.number(reply, 0) == 1);
  }

}
