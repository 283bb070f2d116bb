package dev.warden;

import java.util.concurrent.CompletionStage;

/**
 * A hold on a {@link DistributedLock} that belongs to this handle rather than to a thread: any
 * thread may use and close it, which suits asynchronous code, virtual threads and reactive
 * pipelines. The hold's lease is renewed by the lease keeper until {@link #close()}.
 *
 * <pre>{@code
 * try (LockHandle hold = lock.acquire(Duration.ofSeconds(5))) {
 *   storage.write(record, hold.fencingToken());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} costs one round trip; {@link #isHeld()} one round trip; the
 * other methods none.
 *
 * @since 0.1
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
   * Returns a stage that completes when the hold is known to be lost: the lock key vanished or went
   * to another owner, or renewal was impossible until past the lease's local deadline. It never
   * completes after a normal {@link #close()}.
   *
   * @return a stage completed when the hold is lost
   */
  CompletionStage<Void> leaseLost();

  /**
   * Releases the hold. A second call is a no-op.
   *
   * @throws LeaseExpiredException if the hold had already expired or been force-unlocked
   * @throws WardenException if Redis could not be reached; calling again is safe
   */
  @Override
  void close();
}
