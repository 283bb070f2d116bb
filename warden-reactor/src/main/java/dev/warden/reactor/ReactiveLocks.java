package dev.warden.reactor;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.WardenException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Warden's locks for Project Reactor: acquisition as a {@link Mono} of a {@link LockHandle}, and a
 * scope that holds the lock while a publisher runs. Nothing here blocks a thread: the acquisition
 * waits on Redis's release messages, the release is {@link LockHandle#closeAsync()}.
 *
 * <pre>{@code
 * Mono<Receipt> charged =
 *     ReactiveLocks.withLock(
 *         warden.lock("invoice-" + id),
 *         Duration.ofSeconds(5),
 *         hold -> payments.charge(id, hold.fencingToken()));   // a Mono: released when it ends
 * }</pre>
 *
 * <p><b>Ownership.</b> The hold belongs to the handle, not to a thread: any scheduler may run the
 * work, and two subscriptions never share a hold. It is not reentrant: a nested {@code withLock} of
 * the same name inside the work waits for the outer one, which waits for it (it ends with {@link
 * LockTimeoutException} after its wait).
 *
 * <p><b>Cancellation.</b> Cancelling before the grant abandons the acquisition: nothing is held in
 * Redis afterwards, also when the grant was on its way (it is given back). Cancelling the scope
 * after the grant releases the hold.
 *
 * <p><b>Signals.</b> Values are emitted on Warden's callback executor ({@code
 * ForkJoinPool.commonPool()}) unless you {@code publishOn} another scheduler. The acquisition fails
 * with {@link LockTimeoutException} when the wait passes, {@link WardenException} when Redis cannot
 * be reached; a scope whose work completed but whose release found the lease lost fails with {@link
 * LeaseExpiredException} (the work ran, but another owner may have held the lock meanwhile).
 * Subscribe again to try again: each subscription is a new acquisition.
 *
 * @since 0.2
 */
public final class ReactiveLocks {
  private static final Logger LOG = LoggerFactory.getLogger(ReactiveLocks.class);

  private ReactiveLocks() {}

  /**
   * Returns a {@code Mono} that acquires the lock on each subscription, with a lease the lease
   * keeper renews until the handle is closed; it fails with {@link LockTimeoutException} after
   * {@code waitTime}. The subscriber owns the handle and must close it ({@link
   * LockHandle#closeAsync()}); {@link #withLock} does that for you.
   *
   * @param lock the lock (reentrant, fair, read or write)
   * @param waitTime how long to wait for the lock at most; zero tries once
   * @return a cold {@code Mono} of the handle that owns the hold
   * @throws IllegalArgumentException if {@code lock} is null or {@code waitTime} is null or
   *     negative
   */
  public static Mono<LockHandle> acquire(DistributedLock lock, Duration waitTime) {
    checkLock(lock);
    checkWait(waitTime);
    return acquisition(() -> lock.acquireAsync(waitTime));
  }

  /**
   * Returns a {@code Mono} that acquires the lock with a fixed lease on each subscription: the hold
   * ends after {@code leaseTime} unless the handle extends it or is closed before.
   *
   * @param lock the lock (reentrant, fair, read or write)
   * @param waitTime how long to wait for the lock at most; zero tries once
   * @param leaseTime how long the hold lasts; positive
   * @return a cold {@code Mono} of the handle that owns the hold
   * @throws IllegalArgumentException if {@code lock} is null, {@code waitTime} is null or negative,
   *     or {@code leaseTime} is null, zero or negative
   */
  public static Mono<LockHandle> acquire(
      DistributedLock lock, Duration waitTime, Duration leaseTime) {
    checkLock(lock);
    checkWait(waitTime);
    if (leaseTime == null || leaseTime.isNegative() || leaseTime.isZero()) {
      throw new IllegalArgumentException("leaseTime must be positive: " + leaseTime);
    }
    return acquisition(() -> lock.acquireAsync(waitTime, leaseTime));
  }

  /**
   * Returns a {@code Mono} that runs {@code work} while holding the lock: it acquires on
   * subscription (as {@link #acquire(DistributedLock, Duration)}), subscribes to the work's {@code
   * Mono}, and releases when it completes, fails or is cancelled. Built on {@link Mono#usingWhen}.
   *
   * @param lock the lock
   * @param waitTime how long to wait for the lock at most
   * @param work the work, given the handle (for its fencing token)
   * @param <T> the work's value
   * @return a cold {@code Mono} of the work's value
   * @throws IllegalArgumentException if an argument is null or {@code waitTime} is negative
   */
  public static <T> Mono<T> withLock(
      DistributedLock lock, Duration waitTime, Function<LockHandle, Mono<T>> work) {
    checkWork(work);
    return Mono.usingWhen(
        acquire(lock, waitTime),
        work,
        ReactiveLocks::release,
        (hold, failure) -> release(hold),
        ReactiveLocks::releaseOnCancel);
  }

  /**
   * Returns a {@code Flux} that runs {@code work} while holding the lock: it acquires on
   * subscription, subscribes to the work's publisher, and releases when it completes, fails or is
   * cancelled. Built on {@link Flux#usingWhen}.
   *
   * @param lock the lock
   * @param waitTime how long to wait for the lock at most
   * @param work the work, given the handle (for its fencing token)
   * @param <T> the work's values
   * @return a cold {@code Flux} of the work's values
   * @throws IllegalArgumentException if an argument is null or {@code waitTime} is negative
   */
  public static <T> Flux<T> withLockMany(
      DistributedLock lock, Duration waitTime, Function<LockHandle, ? extends Publisher<T>> work) {
    checkWork(work);
    return Flux.usingWhen(
        acquire(lock, waitTime),
        work,
        ReactiveLocks::release,
        (hold, failure) -> release(hold),
        ReactiveLocks::releaseOnCancel);
  }

  /**
   * Returns a {@code Mono} that releases the hold on subscription ({@link
   * LockHandle#closeAsync()}): it fails with {@link LeaseExpiredException} if the hold had already
   * been lost, {@link WardenException} if Redis could not be reached.
   *
   * @param hold the hold to release
   * @return a cold {@code Mono} that completes once released
   * @throws IllegalArgumentException if {@code hold} is null
   */
  public static Mono<Void> release(LockHandle hold) {
    if (hold == null) {
      throw new IllegalArgumentException("hold must not be null");
    }
    return Mono.defer(() -> fromFuture(hold.closeAsync()));
  }

  /**
   * Releases after a cancellation, which nobody waits for: its failure (a lost lease) is logged,
   * not dropped silently.
   */
  private static Mono<Void> releaseOnCancel(LockHandle hold) {
    return release(hold)
        .doOnError(
            failure ->
                LOG.warn(
                    "{}: released after the work was cancelled, but: {}", hold, failure.toString()))
        .onErrorResume(failure -> Mono.empty());
  }

  /**
   * One acquisition per subscription: a cancel before the grant cancels the future, which abandons
   * the acquisition (a grant that raced in is given back); a grant that completes the future just
   * as the subscriber cancels is released here.
   */
  private static Mono<LockHandle> acquisition(Supplier<CompletableFuture<LockHandle>> start) {
    return Mono.create(
        sink -> {
          CompletableFuture<LockHandle> pending = start.get();
          sink.onCancel(
              () -> {
                if (!pending.cancel(false)) {
                  var unused =
                      pending.thenAccept(
                          hold -> releaseOnCancel(hold).subscribe()); // granted meanwhile
                }
              });
          var unused =
              pending.whenComplete(
                  (hold, failure) -> {
                    if (failure == null) {
                      sink.success(hold);
                    } else {
                      Throwable cause = unwrap(failure);
                      if (!(cause instanceof CancellationException)) {
                        sink.error(cause);
                      }
                    }
                  });
        });
  }

  private static Mono<Void> fromFuture(CompletableFuture<Void> future) {
    return Mono.fromFuture(future, true)
        .onErrorMap(CompletionException.class, ReactiveLocks::unwrap);
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  private static void checkLock(DistributedLock lock) {
    if (lock == null) {
      throw new IllegalArgumentException("lock must not be null");
    }
  }

  private static void checkWait(Duration waitTime) {
    if (waitTime == null || waitTime.isNegative()) {
      throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
    }
  }

  private static void checkWork(Object work) {
    if (work == null) {
      throw new IllegalArgumentException("work must not be null");
    }
  }
}
