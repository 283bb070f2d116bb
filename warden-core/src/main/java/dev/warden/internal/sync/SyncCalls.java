package dev.warden.internal.sync;

import dev.warden.internal.base.Ids;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.base.Subject;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Script;
import dev.warden.internal.wait.Acquisition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the semaphores and the latch share, composed into each: their calls from a caller thread
 * (changes retried safely under a fresh operation id, one-read queries), waiting through an {@link
 * Acquisition}, and the part of their claims that does not differ.
 */
final class SyncCalls {
  private final SyncContext context;
  private final SyncKeys keys;

  SyncCalls(SyncContext context, SyncKeys keys) {
    this.context = context;
    this.keys = keys;
  }

  SyncContext context() {
    return context;
  }

  CompletableFuture<List<Object>> run(Script script, String[] scriptKeys, String... args) {
    return context.scripts().run(script, scriptKeys, args);
  }

  /**
   * Applies a change and waits for its reply. {@code call} gets the key of a fresh operation marker
   * (see {@link SyncKeys#operation}), the same for every retry, so that a call retried after a lost
   * reply changes nothing.
   */
  List<Object> change(String operation, Function<String, CompletableFuture<List<Object>>> call) {
    String marker = keys.operation(Ids.random128());
    return retrying(operation, () -> call.apply(marker), () -> {});
  }

  /**
   * Runs a call that is safe to repeat and waits for its reply; see {@link Calls#awaitRetrying}.
   */
  List<Object> retrying(
      String operation, Supplier<CompletableFuture<List<Object>>> call, Runnable inDoubt) {
    return context.calls().awaitRetrying(keys.describe(), operation, call, inDoubt);
  }

  /** Waits for a one-read query, uninterruptibly. */
  <T> T query(CompletionStage<T> reply, String operation) {
    return Calls.awaitUninterruptibly(reply.toCompletableFuture(), keys.describe(), operation);
  }

  /** How long a semaphore or latch lives after an operation, as a script argument ("0": ever). */
  String idleMillis() {
    return context.settings().syncIdleArgument();
  }

  /** How long an operation marker lives, as a script argument. */
  String markerMillis() {
    return context.settings().operationMarkerArgument();
  }

  /**
   * Acquires through the claim, waiting {@code waitNanos} (negative: forever); returns the grant,
   * or null if the wait ran out.
   *
   * @throws InterruptedException if interrupted before or while waiting; nothing is held then
   */
  <T> T await(Claim<T> claim, long waitNanos) throws InterruptedException {
    checkInterrupt();
    return new Acquisition<>(context.waiting(), claim, waitNanos).start().await(true);
  }

  /** Throws if the calling thread was interrupted (clearing the flag, as a blocking call does). */
  void checkInterrupt() throws InterruptedException {
    Interrupts.checkBefore(keys.describe(), "waiting");
  }

  /** Acquires through the claim if that succeeds at once; returns null if not. */
  <T> T tryOnce(Claim<T> claim) {
    return Interrupts.uninterruptibly(
        () -> new Acquisition<>(context.waiting(), claim, 0).start().await(false));
  }

  /** The error of a change that would take a count of permits beyond the {@code int} range. */
  IllegalArgumentException beyondIntRange(String argument, long now, long value) {
    return new IllegalArgumentException(
        argument
            + " would take the free permits of "
            + keys.describe()
            + " (now "
            + now
            + ") beyond the int range: "
            + value);
  }

  /**
   * The part of a synchronizer's claim that is the same for all: what it is and where its releases
   * are published. What an attempt whose outcome is unknown may have taken, each claim gives back
   * in {@link #giveBackInDoubt()}.
   */
  abstract static class Claim<T> implements dev.warden.internal.wait.Claim<T> {
    private final SyncKeys keys;

    Claim(SyncKeys keys) {
      this.keys = keys;
    }

    @Override
    public final String describe() {
      return keys.describe();
    }

    @Override
    public final String channel() {
      return keys.channel();
    }

    @Override
    public final Subject subject() {
      return keys.subject();
    }
  }
}
