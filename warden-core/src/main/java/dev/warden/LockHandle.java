package dev.warden;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A hold on a {@link DistributedLock} that belongs to this handle rather than to a thread: any
 * thread may use and close it, which suits asynchronous code, virtual threads and reactive
 * pipelines. The hold's lease is renewed by the lease keeper until {@link #close()}, unless it was
 * taken with a fixed lease ({@link DistributedLock#tryAcquire(Duration, Duration)}) or set with
 * {@link #extend(Duration)}: such a lease simply runs out.
 *
 * <pre>{@code
 * try (LockHandle hold = lock.acquire(Duration.ofSeconds(5))) {
 *   storage.write(record, hold.fencingToken());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()}, {@link #closeAfter(Duration)}, {@link #extend(Duration)} and
 * {@link #isHeld()} cost one round trip each; the other methods none.
 *
 * <p><b>Without blocking.</b> Each of those has a form that blocks no thread ({@link
 * #closeAsync()}, {@link #closeAfterAsync(Duration)}, {@link #extendAsync(Duration)}, {@link
 * #isHeldAsync()}), for event loops, reactive pipelines and coroutines: it sends the call and
 * returns a future that completes with the same outcome, and fails with the same exception, as the
 * blocking form; the future completes on Warden's callback executor, never on a Redis I/O thread,
 * so dependent stages may block. A handle's operations never overlap: one called while another is
 * in flight (blocking or not) is sent after it ends. Cancelling a returned future does not stop its
 * operation.
 *
 * <pre>{@code
 * lock.acquireAsync(Duration.ofSeconds(5))
 *     .thenCompose(hold -> store.writeAsync(record, hold.fencingToken())
 *         .whenComplete((written, failure) -> hold.closeAsync()));   // after success or failure
 * }</pre>
 *
 * <p>{@code warden-reactor} and {@code warden-kotlin} build scopes on these that also release when
 * the work is cancelled.
 *
 * @since 0.2
 */
public interface LockHandle extends AutoCloseable {

  /**
   * Returns the fencing token of this hold, strictly greater than that of any earlier hold.
   *
   * @return this hold's fencing token
   */
  long fencingToken();

  /**
   * Asks Redis whether this handle still holds the lock; false once the hold expired or ended.
   *
   * @return {@code true} if the hold is still this handle's in Redis
   */
  boolean isHeld();

  /**
   * Asks Redis, without blocking, whether this handle still holds the lock, as {@link #isHeld()}.
   *
   * <p>The default runs {@link #isHeld()} on the common pool; Warden's own handles of a lock on one
   * deployment send the query without blocking any thread.
   *
   * @return a future of {@code true} if the hold is still this handle's in Redis; it fails with
   *     {@link WardenException} if Redis could not be reached
   * @since 0.2
   */
  default CompletableFuture<Boolean> isHeldAsync() {
    return CompletableFuture.supplyAsync(this::isHeld);
  }

  /**
   * Returns a stage that completes when the hold is known to be lost: the lock key vanished or went
   * to another owner, or renewal was impossible until past the lease's local deadline. It never
   * completes after a normal {@link #close()}.
   *
   * @return a stage completed when the hold is lost
   */
  CompletionStage<Void> leaseLost();

  /**
   * Sets this hold's lease to {@code leaseTime} from now, if Redis still has the hold as this
   * handle's; returns false, changing nothing in Redis, when the hold expired, was force-unlocked
   * or was lost (another owner's hold is never touched), or this handle was closed. From then on
   * the lease keeper no longer renews the hold: it ends after {@code leaseTime} unless extended
   * again or closed. It may be shortened this way too, except on a read lock, whose lease only ever
   * lengthens. One round trip.
   *
   * <pre>{@code
   * if (!hold.extend(Duration.ofMinutes(5))) {
   *   abortWork(); // the hold is gone: another owner may hold the lock now
   * }
   * }</pre>
   *
   * @param leaseTime the new lease, counted from now; positive, in whole milliseconds (rounded up)
   * @return {@code true} if the hold is this handle's and its lease was set
   * @throws IllegalArgumentException if {@code leaseTime} is null, zero or negative
   * @throws WardenException if Redis could not be reached; calling again is safe
   * @since 0.2
   */
  boolean extend(Duration leaseTime);

  /**
   * Sets this hold's lease to {@code leaseTime} from now, as {@link #extend(Duration)}, without
   * blocking.
   *
   * <p>The default runs {@link #extend(Duration)} on the common pool; Warden's own handles of a
   * lock on one deployment send the call without blocking any thread.
   *
   * @param leaseTime the new lease, counted from now; positive, in whole milliseconds (rounded up)
   * @return a future of {@code true} if the hold is this handle's and its lease was set, {@code
   *     false} if it was gone; it fails with {@link WardenException} if Redis could not be reached
   * @throws IllegalArgumentException if {@code leaseTime} is null, zero or negative (Warden's own
   *     handles throw it at once; the default fails the future with it)
   * @since 0.2
   */
  default CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
    return CompletableFuture.supplyAsync(() -> extend(leaseTime));
  }

  /**
   * Ends this hold but keeps the lock for {@code keepFor} more: the hold stays in Redis, unrenewed,
   * and expires once {@code keepFor} has passed, so that no other owner can take the lock before
   * then (a job that must not run again too soon). A {@code keepFor} of zero is {@link #close()}.
   * Owner-checked: a hold that expired or went to another owner is left alone. After this call the
   * handle is closed ({@link #extend(Duration)} returns false, a second close is a no-op) and
   * {@link #leaseLost()} never completes. One round trip. No waiter is woken early: the lock is
   * free when the kept lease runs out. On a read lock the kept time cannot shorten the read lease
   * already granted; it only ever lengthens it.
   *
   * @param keepFor how long the lock stays held from now; zero or positive, in whole milliseconds
   *     (rounded up)
   * @throws IllegalArgumentException if {@code keepFor} is null or negative
   * @throws LeaseExpiredException if the hold had already expired or been force-unlocked
   * @throws WardenException if Redis could not be reached; calling again is safe
   * @since 0.2
   */
  void closeAfter(Duration keepFor);

  /**
   * Ends this hold but keeps the lock for {@code keepFor} more, as {@link #closeAfter(Duration)},
   * without blocking.
   *
   * <p>The default runs {@link #closeAfter(Duration)} on the common pool; Warden's own handles of a
   * lock on one deployment send the call without blocking any thread.
   *
   * @param keepFor how long the lock stays held from now; zero or positive, in whole milliseconds
   *     (rounded up)
   * @return a future completed once the hold ended; it fails with {@link LeaseExpiredException} if
   *     the hold had already expired or been force-unlocked, or {@link WardenException} if Redis
   *     could not be reached (calling again is safe)
   * @throws IllegalArgumentException if {@code keepFor} is null or negative (Warden's own handles
   *     throw it at once; the default fails the future with it)
   * @since 0.2
   */
  default CompletableFuture<Void> closeAfterAsync(Duration keepFor) {
    return CompletableFuture.runAsync(() -> closeAfter(keepFor));
  }

  /**
   * Returns how many replicas acknowledged this hold's acquisition under {@link
   * Replication#awaitReplicas} or {@link Replication#requireReplicas}; -1 under {@link
   * Replication#none()} and for locks that do not wait for replicas (the quorum lock). No round
   * trip.
   *
   * @return the acknowledged replicas, or -1
   * @since 0.2
   */
  default int acknowledgedReplicas() {
    return -1;
  }

  /**
   * Releases the hold. A second call is a no-op.
   *
   * @throws LeaseExpiredException if the hold had already expired or been force-unlocked
   * @throws WardenException if Redis could not be reached; calling again is safe
   */
  @Override
  void close();

  /**
   * Releases the hold, as {@link #close()}, without blocking: a second call (or one after {@link
   * #close()}) completes at once and changes nothing.
   *
   * <p>The default runs {@link #close()} on the common pool; Warden's own handles of a lock on one
   * deployment send the release without blocking any thread.
   *
   * @return a future completed once the hold was released; it fails with {@link
   *     LeaseExpiredException} if the hold had already expired or been force-unlocked, or {@link
   *     WardenException} if Redis could not be reached (calling again is safe)
   * @since 0.2
   */
  default CompletableFuture<Void> closeAsync() {
    return CompletableFuture.runAsync(this::close);
  }
}
