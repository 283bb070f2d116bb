package dev.warden.internal.sync;

import dev.warden.DistributedCountDownLatch;
import dev.warden.internal.base.Args;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The count-down latch: a Redis hash holding the count (and a mark when somebody awaits it),
 * deleted when the count reaches zero, changed only by the latch-*.lua scripts.
 *
 * <p>Awaiting is an {@link Acquisition} whose attempt reads the count and marks the latch as
 * awaited; the count-down that reaches zero (and {@link #delete()}) publishes {@code all}, which
 * wakes every parked awaiter in every process at once. A lost message costs at most the recheck
 * interval, and a resubscription after a reconnect wakes every awaiter, which then reads the count
 * again. Each {@link #trySetCount} records a new arming: an awaiter that finds the latch counting
 * under another arming than the one it first found returns, since the latch opened meanwhile (it
 * was set again before the awaiter looked).
 */
final class RedisCountDownLatch implements DistributedCountDownLatch {
  private final SyncKeys keys;
  private final SyncCalls calls;

  RedisCountDownLatch(SyncContext context, SyncKeys keys) {
    this.keys = keys;
    this.calls = new SyncCalls(context, keys);
  }

  @Override
  public boolean trySetCount(long count) {
    Args.notNegative("count", count);
    if (count == 0) {
      return getCount() == 0; // "setting" zero changes nothing: it succeeds when already there
    }
    return changed(
        "trySetCount",
        marker ->
            calls.run(
                SyncScripts.LATCH_SET,
                new String[] {keys.key(), marker},
                Long.toString(count),
                calls.markerMillis(),
                calls.idleMillis()));
  }

  @Override
  public void countDown() {
    changed(
        "countDown",
        marker ->
            calls.run(
                SyncScripts.LATCH_COUNT_DOWN,
                new String[] {keys.key(), marker},
                keys.channel(),
                calls.markerMillis(),
                calls.idleMillis()));
  }

  @Override
  public long getCount() {
    String count =
        calls.query(
            calls.context().scripts().redis().command(keys.key(), r -> r.hget(keys.key(), "count")),
            "getCount");
    return count == null ? 0 : Long.parseLong(count);
  }

  @Override
  public void await() throws InterruptedException {
    calls.await(new Opening(), -1);
  }

  @Override
  public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    long waitNanos = Math.max(0, Args.unit(unit).toNanos(timeout)); // as CountDownLatch: <= 0
    return calls.await(new Opening(), waitNanos) != null;
  }

  @Override
  public boolean delete() {
    // A retry after a lost reply may find the latch already deleted by the first run, and then
    // answers false: the one answer a retry can get wrong, and only after a lost reply.
    List<Object> reply =
        calls.retrying(
            "delete",
            () -> calls.run(SyncScripts.LATCH_DELETE, new String[] {keys.key()}, keys.channel()),
            () -> {});
    return Scripts.number(reply, 0) == 1;
  }

  private boolean changed(
      String operation, Function<String, CompletableFuture<List<Object>>> call) {
    return Scripts.number(calls.change(operation, call), 0) == 1;
  }

  /**
   * Awaiting the latch, for {@link Acquisition}: the "grant" is the latch found open, or found
   * counting under another arming than the one this awaiter first found (it opened, and was set
   * again before this awaiter looked: latch-await.lua).
   */
  private final class Opening extends SyncCalls.Claim<Boolean> {
    // the arming first found; written by one attempt's reply at a time (attempts never overlap)
    private volatile String arming = "";

    Opening() {
      super(keys);
    }

    @Override
    public String verb() {
      return "await";
    }

    @Override
    public CompletableFuture<Outcome<Boolean>> attempt(boolean othersWait) {
      return calls
          .run(SyncScripts.LATCH_AWAIT, new String[] {keys.key()}, arming, calls.idleMillis())
          .thenApply(
              reply -> {
                if (Scripts.number(reply, 0) == 1) {
                  return Outcome.granted(Boolean.TRUE);
                }
                if (arming.isEmpty()) {
                  arming = String.valueOf(reply.get(1));
                }
                return Outcome.busy(0);
              });
    }

    @Override
    public CompletableFuture<?> rollback(Boolean granted) {
      return CompletableFuture.completedFuture(null); // finding it open takes nothing
    }
  }

  @Override
  public String toString() {
    return "RedisCountDownLatch[" + keys.name() + "]";
  }
}
