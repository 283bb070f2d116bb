package dev.warden.internal.quorum;

import dev.warden.LockHandle;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One part of a quorum lock as the algorithm uses it ({@link ClientPart} in production; scripted
 * parts in tests). Nothing here blocks: a part's blocking calls run on threads of the part's own
 * client, and only their futures come back.
 */
interface Part {
  /**
   * Takes the part's lock for a new owner with a fixed lease, without waiting: the hold, or empty
   * when another owner holds it. Fails on a Redis failure.
   */
  CompletableFuture<Optional<LockHandle>> tryAcquire(long leaseMillis);

  /** Runs a blocking call of one of this part's holds ({@code extend}, {@code isHeld}, ...). */
  <T> CompletableFuture<T> call(Supplier<T> call);

  /** Raises the part's fence so that it mints above {@code token}; completes once it stands. */
  CompletableFuture<?> raiseFence(long token);
}
