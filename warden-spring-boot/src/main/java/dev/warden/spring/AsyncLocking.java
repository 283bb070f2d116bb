package dev.warden.spring;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.reactor.ReactiveLocks;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link WardenLocked} on methods whose work ends after they return: the lock is a handle's (not
 * the calling thread's), taken without blocking before the method runs, and released when the
 * returned future or publisher completes, fails or is cancelled.
 */
final class AsyncLocking {
  /** "Wait without limit": Warden counts it as the longest wait it can. */
  private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

  private AsyncLocking() {}

  /**
   * Returns a future of the method's result: the lock is acquired without blocking, the method is
   * called (on Warden's callback executor) once it is held, and the lock is released when the
   * method's future completes. Cancelling the returned future cancels the acquisition, or the
   * method's future (and then releases).
   */
  // FutureReturnValueIgnored: each callback completes `result`; what whenComplete returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  static CompletableFuture<Object> stage(
      MethodInvocation invocation, LockedMethod locked, DistributedLock lock, String name) {
    CompletableFuture<Object> result = new CompletableFuture<>();
    CompletableFuture<LockHandle> acquiring = acquireAsync(lock, locked);
    result.whenComplete(
        (value, failure) -> {
          if (result.isCancelled()) {
            acquiring.cancel(false); // abandons a wait; a grant that raced in is given back
          }
        });
    acquiring.whenComplete(
        (hold, failure) -> {
          if (failure != null) {
            Throwable cause = unwrap(failure);
            if (cause instanceof LockTimeoutException && locked.skips()) {
              result.complete(locked.skipped());
            } else {
              result.completeExceptionally(
                  cause instanceof LockTimeoutException
                      ? WardenLockedInterceptor.notAcquired(name, locked, cause)
                      : cause);
            }
            return;
          }
          if (result.isDone()) {
            hold.closeAsync(); // cancelled meanwhile: nobody will use it
            return;
          }
          CompletionStage<?> work;
          try {
            work = (CompletionStage<?>) proceedCopy(invocation);
          } catch (Throwable methodFailure) {
            work = CompletableFuture.failedFuture(methodFailure);
          }
          if (work == null) {
            work = CompletableFuture.completedFuture(null);
          }
          CompletableFuture<?> running = work.toCompletableFuture();
          result.whenComplete(
              (value, resultFailure) -> {
                if (result.isCancelled()) {
                  running.cancel(true); // its completion below releases the lock
                }
              });
          running.whenComplete(
              (value, workFailure) ->
                  hold.closeAsync()
                      .whenComplete(
                          (released, releaseFailure) -> {
                            if (workFailure != null) {
                              Throwable thrown = unwrap(workFailure);
                              if (releaseFailure != null) {
                                thrown.addSuppressed(unwrap(releaseFailure));
                              }
                              result.completeExceptionally(thrown);
                            } else if (releaseFailure != null) {
                              result.completeExceptionally(unwrap(releaseFailure));
                            } else {
                              result.complete(value);
                            }
                          }));
        });
    return result;
  }

  /**
   * Returns a {@code Mono} that, on each subscription, acquires the lock, calls the method and
   * subscribes to its {@code Mono}, and releases when that completes, fails or is cancelled.
   */
  static Mono<Object> mono(
      MethodInvocation invocation, LockedMethod locked, DistributedLock lock, String name) {
    return Mono.usingWhen(
        acquire(lock, locked, name),
        hold -> Mono.defer(() -> monoOf(proceedOrError(invocation))),
        ReactiveLocks::release,
        (hold, failure) -> ReactiveLocks.release(hold),
        hold -> ReactiveLocks.release(hold).onErrorResume(failure -> Mono.empty()));
  }

  /**
   * Returns a {@code Flux} that, on each subscription, acquires the lock, calls the method and
   * subscribes to its publisher, and releases when that completes, fails or is cancelled.
   */
  static Flux<Object> flux(
      MethodInvocation invocation, LockedMethod locked, DistributedLock lock, String name) {
    return Flux.usingWhen(
        acquire(lock, locked, name),
        hold -> Flux.defer(() -> fluxOf(proceedOrError(invocation))),
        ReactiveLocks::release,
        (hold, failure) -> ReactiveLocks.release(hold),
        hold -> ReactiveLocks.release(hold).onErrorResume(failure -> Mono.empty()));
  }

  /** The acquisition as a {@code Mono}: empty when skipped, {@link LockNotAcquiredException}. */
  private static Mono<LockHandle> acquire(DistributedLock lock, LockedMethod locked, String name) {
    Duration wait = locked.waitTime() == null ? FOREVER : locked.waitTime();
    Mono<LockHandle> acquisition =
        locked.leaseTime() == null
            ? ReactiveLocks.acquire(lock, wait)
            : ReactiveLocks.acquire(lock, wait, locked.leaseTime());
    return acquisition.onErrorResume(
        LockTimeoutException.class,
        timedOut ->
            locked.skips()
                ? Mono.empty()
                : Mono.error(WardenLockedInterceptor.notAcquired(name, locked, timedOut)));
  }

  private static CompletableFuture<LockHandle> acquireAsync(
      DistributedLock lock, LockedMethod locked) {
    Duration wait = locked.waitTime() == null ? FOREVER : locked.waitTime();
    return locked.leaseTime() == null
        ? lock.acquireAsync(wait)
        : lock.acquireAsync(wait, locked.leaseTime());
  }

  /** The method's result, or the publisher of what it threw. */
  private static Object proceedOrError(MethodInvocation invocation) {
    try {
      return proceedCopy(invocation);
    } catch (Throwable failure) {
      return Mono.error(failure);
    }
  }

  @SuppressWarnings("unchecked") // the method was checked to return a Mono
  private static Mono<Object> monoOf(Object result) {
    return result == null ? Mono.empty() : (Mono<Object>) result;
  }

  private static Flux<Object> fluxOf(Object result) {
    return result == null ? Flux.empty() : Flux.from((Publisher<?>) result);
  }

  /**
   * Calls the method once more through the rest of the advice chain: a copy of the invocation, so
   * that each subscription (and a call on another thread) proceeds from the same point.
   */
  private static Object proceedCopy(MethodInvocation invocation) throws Throwable {
    MethodInvocation copy =
        invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    return copy.proceed();
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }
}
