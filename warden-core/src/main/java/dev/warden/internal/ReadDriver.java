package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The read side of a read-write lock: every reader's hold has its own lease, kept as a deadline
 * in a sorted set, so an expired reader stops counting without any scan, and taking, releasing
 * or renewing a read hold costs the same however many readers there are. New readers are refused
 * while another owner writes or a writer waits.
 */
final class ReadDriver implements LockDriver {
  private final WardenRuntime runtime;
  private final ReadWriteKeys keys;
  private final Scripts scripts;

  ReadDriver(WardenRuntime runtime, ReadWriteKeys keys) {
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
    return "read lock '" + keys.name() + "'";
  }

  @Override
  public String holdKey() {
    return keys.reads();
  }

  @Override
  public boolean supportsConditions() {
    return false;
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
            Scripts.RW_READ_ACQUIRE,
            keys.acquireKeys(),
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            runtime.fenceRetentionMillis(),
            acquisitionId)
        .thenApply(
            reply -> {
              Attempt attempt = ReentrantDriver.attempt(reply);
              return attempt.acquired()
                  ? attempt
                  : Attempt.busy(WriteDriver.heartbeat(attempt.retryAfterMillis()));
            });
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return scripts
        .run(
            Scripts.RW_READ_RELEASE,
            new String[] {keys.reads(), keys.readers(), keys.wanted()},
            owner,
            Integer.toString(heldBefore),
            keys.channel())
        .thenApply(ReadDriver::release);
  }

  /** Parses {1, remaining} or {0}; a read-write lock wakes every local waiter. */
  static Release release(List<Object> reply) {
    return Scripts.number(reply, 0) == 1
        ? new Release(true, (int) Scripts.number(reply, 1), WAKE_ALL)
        : new Release(false, 0, WAKE_ALL);
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(Scripts.RW_FORCE_RELEASE, new String[] {keys.reads(), keys.readers()}, keys.channel())
        .thenApply(reply -> Scripts.number(reply, 0) == 1);
  }

  @Override
  public Scripts.Script renewScript() {
    return Scripts.RW_READ_RENEW;
  }

  @Override
  public List<String> renewKeys() {
    return List.of(keys.reads(), keys.readers());
  }

  private CompletableFuture<List<Object>> query(String owner) {
    return scripts.run(
        Scripts.RW_READ_QUERY, new String[] {keys.reads(), keys.readers()}, owner);
  }

  @Override
  public CompletableFuture<Boolean> isLocked() {
    return query("").thenApply(reply -> Scripts.number(reply, 0) > 0);
  }

  @Override
  public CompletableFuture<Integer> holdCount(String owner) {
    return query(owner).thenApply(reply -> (int) Scripts.number(reply, 1));
  }

  @Override
  public CompletableFuture<Long> remainTimeToLive() {
    return query("").thenApply(reply -> Scripts.number(reply, 3));
  }

  @Override
  public CompletableFuture<Long> token(String owner) {
    return query(owner)
        .thenApply(reply -> Scripts.number(reply, 2) < 0 ? null : Scripts.number(reply, 2));
  }
}
