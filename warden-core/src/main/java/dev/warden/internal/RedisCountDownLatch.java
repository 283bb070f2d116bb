package dev.warden.internal;

import dev.warden.DistributedCountDownLatch;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The count-down latch: a Redis hash holding the count (and a mark when somebody awaits it),
 * deleted when the count reaches zero, changed only by the latch-*.lua scripts.
 *
 * <p>Awaiting is an {@link Acquisition} whose attempt reads the count and marks the latch as
 * awaited; the count-down that reaches zero (and {@link #delete()}) publishes {@code all}, which
 * wakes every parked awaiter in every process at once. A lost message costs at most the recheck
 * interval, and a resubscription after a reconnect wakes every awaiter, which then reads the count
 * again.
 */
final class RedisCountDownLatch implements DistributedCountDownLatch {
  private final WardenRuntime runtime;
  private final SyncKeys keys;

  RedisCountDownLatch(WardenRuntime runtime, SyncKeys keys) {
    this.runtime = runtime;
    this.keys = keys;
  }

  @Override
  public boolean trySetCount(long count) {
    Args.notNegative("count", count);
    if (count == 0) {
      return getCount() == 0; // "setting" zero changes nothing: it succeeds when already there
    }
    String operationId = Ids.random128();
    return retrying(
        "trySetCount",
        () ->
            run(
                Scripts.LATCH_SET,
                new String[] {keys.key(), keys.operation(operationId)},
                Long.toString(count),
                markerMillis()));
  }

  @Override
  public void countDown() {
    String operationId = Ids.random128();
    retrying(
        "countDown",
        () ->
            run(
                Scripts.LATCH_COUNT_DOWN,
                new String[] {keys.key(), keys.operation(operationId)},
                keys.channel(),
                markerMillis()));
  }

  @Override
  public long getCount() {
    String count =
        Futures.awaitUninterruptibly(
            runtime.redis().hget(keys.key(), "count").toCompletableFuture(),
            keys.describe(),
            "getCount");
    return count == null ? 0 : Long.parseLong(count);
  }

  @Override
  public void await() throws InterruptedException {
    checkInterrupt();
    Acquisitions.await(acquisition(-1), keys.describe(), true);
  }

  @Override
  public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    Args.unit(unit);
    checkInterrupt();
    long waitNanos = Math.max(0, unit.toNanos(timeout)); // as CountDownLatch: <= 0 does not wait
    return Acquisitions.await(acquisition(waitNanos), keys.describe(), true) != null;
  }

  @Override
  public boolean delete() {
    // A retry after a lost reply may find the latch already deleted by the first run, and then
    // answers false: the one answer a retry can get wrong, and only after a lost reply.
    return retrying(
        "delete", () -> run(Scripts.LATCH_DELETE, new String[] {keys.key()}, keys.channel()));
  }

  private Acquisition<Boolean> acquisition(long waitNanos) {
    return new Acquisition<>(runtime, new Opening(), waitNanos).start();
  }

  /** Awaiting the latch, for {@link Acquisition}: the "grant" is the latch found open. */
  private final class Opening implements Acquisition.Claim<Boolean> {
    @Override
    public String describe() {
      return keys.describe();
    }

    @Override
    public String channel() {
      return keys.channel();
    }

    @Override
    public CompletableFuture<Acquisition.Outcome<Boolean>> attempt(boolean othersWait) {
      return run(Scripts.LATCH_AWAIT, new String[] {keys.key()})
          .thenApply(
              reply ->
                  MutexCommands.number(reply, 0) == 1
                      ? Acquisition.Outcome.granted(Boolean.TRUE)
                      : Acquisition.Outcome.busy(0));
    }

    @Override
    public CompletableFuture<?> rollback(Boolean granted) {
      return CompletableFuture.completedFuture(null); // finding it open takes nothing
    }
  }

  /** Runs a change from the caller's thread, retried safely; returns whether the reply is 1. */
  private boolean retrying(String operation, Supplier<CompletableFuture<List<Object>>> call) {
    List<Object> reply = Futures.awaitRetrying(runtime, keys.describe(), operation, call, () -> {});
    return MutexCommands.number(reply, 0) == 1;
  }

  private CompletableFuture<List<Object>> run(
      Scripts.Script script, String[] scriptKeys, String... args) {
    return runtime.scripts().run(script, scriptKeys, args);
  }

  private String markerMillis() {
    return Long.toString(runtime.operationMarkerMillis());
  }

  private void checkInterrupt() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(keys.describe() + ": interrupted before awaiting");
    }
  }

  @Override
  public String toString() {
    return "RedisCountDownLatch[" + keys.name() + "]";
  }
}
