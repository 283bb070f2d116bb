package dev.warden.internal.quorum;

import dev.warden.LockHandle;
import dev.warden.WardenException;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lock.QuorumPart;
import dev.warden.internal.redis.Script;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * A part of a quorum lock that is a reentrant lock of one {@code Warden}: its holds are taken and
 * ended through the lock's API, on that client's quorum threads ({@link QuorumPart#calls()}); its
 * fence is raised with {@code quorum-fence-raise.lua} through that client's scripts.
 */
final class ClientPart implements Part {
  private static final Script FENCE_RAISE = Script.load(ClientPart.class, "quorum-fence-raise");
  private static final long EPOCH_SPAN_BITS = 47; // a token: epoch << 47 | count (prelude.lua)
  private static final String RETENTION = Long.toString(Settings.FENCE_RETENTION_MILLIS);

  private final QuorumPart part;

  ClientPart(QuorumPart part) {
    this.part = part;
  }

  @Override
  public CompletableFuture<Optional<LockHandle>> tryAcquire(long leaseMillis) {
    return call(
        () -> {
          try {
            return part.lock().tryAcquire(Duration.ZERO, Duration.ofMillis(leaseMillis));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // its client is closing
            return Optional.empty();
          }
        });
  }

  @Override
  public <T> CompletableFuture<T> call(Supplier<T> call) {
    try {
      return CompletableFuture.supplyAsync(call, part.calls());
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new WardenException(part.lock().getName() + ": the part's Warden is closed", e));
    }
  }

  @Override
  public CompletableFuture<?> raiseFence(long token) {
    return part.scripts()
        .run(
            FENCE_RAISE,
            new String[] {part.fenceKey()},
            Long.toString(token >>> EPOCH_SPAN_BITS),
            Long.toString(token & ((1L << EPOCH_SPAN_BITS) - 1)),
            RETENTION);
  }

  @Override
  public String toString() {
    return "part " + part.lock();
  }
}
