package dev.warden.internal.lock;

import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Args;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.wait.Acquisition;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hold owned by a handle rather than a thread; usable from any thread. Every operation that ends
 * or changes the hold is sent without blocking and runs after the handle's earlier ones (never two
 * at once); the blocking forms wait for the same operation on the caller's thread, so both forms
 * share one path and one outcome.
 */
final class MutexHandle implements LockHandle {
  private static final Logger log = LoggerFactory.getLogger(MutexHandle.class);

  private final RedisMutex lock;
  private final Hold hold;
  private final int acknowledgedReplicas; // -1 when no replication policy applied
  // written only by the handle's operations, which never overlap (next)
  private volatile boolean closed;
  private CompletableFuture<?> last = CompletableFuture.completedFuture(null); // guarded by this

  MutexHandle(RedisMutex lock, Hold hold) {
    this(lock, hold, -1);
  }

  MutexHandle(RedisMutex lock, Hold hold, int acknowledgedReplicas) {
    this.lock = lock;
    this.hold = hold;
    this.acknowledgedReplicas = acknowledgedReplicas;
  }

  @Override
  public int acknowledgedReplicas() {
    return acknowledgedReplicas;
  }

  /**
   * The handle an asynchronous acquisition ends with, completed on the callback executor (never on
   * a Redis I/O thread). Cancelling the returned future abandons the acquisition; a grant that
   * arrives after that is given back by the acquisition itself, and a handle made before it is
   * closed here.
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  static CompletableFuture<LockHandle> whenAcquired(
      RedisMutex lock,
      Acquisition<Granted> acquisition,
      Function<Granted, MutexHandle> newHandle,
      Supplier<LockTimeoutException> timedOut) {
    Executor callbacks = lock.core().context().callbacks();
    String object = lock.core().driver().describe();
    CompletableFuture<LockHandle> handle = new CompletableFuture<>();
    handle.whenComplete(
        (ignored, failure) -> {
          if (handle.isCancelled()) {
            acquisition.cancel();
          }
        });
    acquisition.whenComplete(
        (granted, failure) -> {
          if (failure != null) {
            Throwable cause = Failures.unwrap(failure);
            if (!(cause instanceof CancellationException)) {
              callbacks.execute(
                  () -> handle.completeExceptionally(Failures.forCaller(object, "acquire", cause)));
            }
          } else if (granted == null) {
            callbacks.execute(() -> handle.completeExceptionally(timedOut.get()));
          } else {
            MutexHandle made = newHandle.apply(granted);
            callbacks.execute(
                () -> {
                  if (!handle.complete(made)) {
                    made.closeQuietly();
                  }
                });
          }
        });
    return handle;
  }

  @Override
  public long fencingToken() {
    return hold.token();
  }

  @Override
  public boolean isHeld() {
    return lock.isHeldBy(hold.owner());
  }

  @Override
  public CompletableFuture<Boolean> isHeldAsync() {
    return toCaller(lock.isHeldByAsync(hold.owner()), "isHeld");
  }

  @Override
  public CompletionStage<Void> leaseLost() {
    return hold.lost().minimalCompletionStage();
  }

  @Override
  public void close() {
    await(ending(() -> lock.core().releaseAsync(hold)), "unlock");
  }

  @Override
  public CompletableFuture<Void> closeAsync() {
    return toCaller(ending(() -> lock.core().releaseAsync(hold)), "unlock");
  }

  @Override
  public boolean extend(Duration leaseTime) {
    return await(extending(Args.leaseMillis("leaseTime", leaseTime)), "extend");
  }

  @Override
  public CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
    return toCaller(extending(Args.leaseMillis("leaseTime", leaseTime)), "extend");
  }

  @Override
  public void closeAfter(Duration keepFor) {
    await(keeping(Args.notNegativeMillis("keepFor", keepFor)), "unlock");
  }

  @Override
  public CompletableFuture<Void> closeAfterAsync(Duration keepFor) {
    return toCaller(keeping(Args.notNegativeMillis("keepFor", keepFor)), "unlock");
  }

  private CompletableFuture<Boolean> extending(long leaseMillis) {
    return next(
        () ->
            closed
                ? CompletableFuture.completedFuture(false)
                : lock.core().setLeaseAsync(hold, leaseMillis, "extend"));
  }

  private CompletableFuture<Void> keeping(long keepMillis) {
    return keepMillis == 0
        ? ending(() -> lock.core().releaseAsync(hold))
        : ending(() -> lock.core().releaseAfterAsync(hold, keepMillis));
  }

  /**
   * Ends the hold with {@code release}, after the handle's earlier operations, unless it already
   * ended: then nothing is sent. A hold found lost ends the handle too (reported once).
   */
  private CompletableFuture<Void> ending(Supplier<CompletableFuture<Void>> release) {
    return next(
        () -> {
          if (closed) {
            return CompletableFuture.completedFuture(null);
          }
          return release
              .get()
              .whenComplete(
                  (ignored, failure) -> {
                    if (failure == null
                        || Failures.unwrap(failure) instanceof IllegalMonitorStateException) {
                      closed = true; // the hold is gone either way
                    }
                  });
        });
  }

  /**
   * Runs {@code operation} once the handle's earlier operations are over, so that two never overlap
   * (as the blocking forms never did): at once on the calling thread when none is pending, else on
   * the thread that ends the last one. Never blocks.
   */
  private <T> CompletableFuture<T> next(Supplier<CompletableFuture<T>> operation) {
    CompletableFuture<T> result;
    synchronized (this) {
      CompletableFuture<?> before = last;
      if (before.isDone()) {
        result = start(operation);
      } else {
        result = before.handle((ignored, failure) -> null).thenCompose(ignored -> start(operation));
      }
      last = result;
    }
    return result;
  }

  private static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> operation) {
    try {
      return operation.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Waits for an operation on the caller's thread, as the blocking forms do. */
  private <T> T await(CompletableFuture<T> operation, String verb) {
    return Calls.awaitUninterruptibly(operation, lock.core().driver().describe(), verb);
  }

  /**
   * A copy of {@code operation} completed on the callback executor, never on a Redis I/O thread or
   * the timer, with the failure unwrapped.
   */
  // FutureReturnValueIgnored: the callback completes the copy; what whenComplete returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> CompletableFuture<T> toCaller(CompletableFuture<T> operation, String verb) {
    Executor callbacks = lock.core().context().callbacks();
    String object = lock.core().driver().describe();
    CompletableFuture<T> result = new CompletableFuture<>();
    operation.whenComplete(
        (value, failure) ->
            callbacks.execute(
                () -> {
                  if (failure == null) {
                    result.complete(value);
                  } else {
                    result.completeExceptionally(Failures.forCaller(object, verb, failure));
                  }
                }));
    return result;
  }

  /** Releases the hold without waiting, logging instead of throwing: for holds nobody will use. */
  // FutureReturnValueIgnored: the callback logs the outcome; the copy it returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  void closeQuietly() {
    ending(() -> lock.core().releaseAsync(hold))
        .whenComplete(
            (ignored, failure) -> {
              if (failure != null) {
                log.warn(
                    "could not release an unused hold of {}: {}",
                    lock.getName(),
                    Failures.unwrap(failure).toString());
              }
            });
  }

  @Override
  public String toString() {
    return "LockHandle["
        + lock.getName()
        + ", owner "
        + hold.owner()
        + ", token "
        + hold.token()
        + "]";
  }
}
