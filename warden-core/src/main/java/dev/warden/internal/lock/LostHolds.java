package dev.warden.internal.lock;

import dev.warden.LeaseExpiredException;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.redis.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drop of a hold its client declared lost by its lease deadline, or at its maximum hold time
 * ({@link LockDriver#dropLost}), and its owner's unlock of such a hold, for {@link LockCore}:
 * renewals sent before the deadline may reach Redis after it and keep the hold a lease longer, held
 * by nobody, so the client ends it there, by its token.
 */
final class LostHolds {
  private static final Logger log = LoggerFactory.getLogger(LostHolds.class);

  private LostHolds() {}

  /**
   * Ends in Redis, by its token, a hold the lease keeper declared lost by its lease deadline (see
   * {@link LockDriver#dropLost}); a failure is logged, and the hold then ends with its lease. What
   * it ended wakes this client's waiters as a last release does.
   */
  static CompletableFuture<?> drop(LockCore core, Hold hold) {
    LockDriver driver = core.driver();
    return driver
        .dropLost(hold.owner(), hold.token())
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                log.warn(
                    "{}: could not end the lost hold of {} (fencing token {}) in Redis; it ends"
                        + " with its lease at the latest: {}",
                    driver.describe(),
                    hold.owner(),
                    hold.token(),
                    Failures.unwrap(failure).toString());
                throw new CompletionException(Failures.unwrap(failure));
              }
              if (reply.held()) {
                core.wakeLocal(reply.wake());
              }
              return reply;
            });
  }

  /**
   * The failure an unlock of a hold that is not plainly held (lost) throws, after this: a hold lost
   * by its lease deadline whose drop nobody has answered yet (it was sent into a partition, say) is
   * dropped again, waited for up to the command timeout, so that renewals that reached Redis late
   * do not keep it after its owner's unlock.
   */
  static LeaseExpiredException unlockFailure(LockCore core, Hold hold) {
    CompletableFuture<?> drop = hold.dropLost();
    if (drop != null) {
      LockContext context = core.context();
      var unused = context.calls().awaitAtMost(drop, context.settings().commandTimeoutNanos());
    }
    return core.leaseExpired(hold, "unlock");
  }

  /**
   * {@link #unlockFailure} without blocking: the drop, then {@link LeaseExpiredException} for the
   * unlock.
   */
  static CompletableFuture<Void> unlockAsync(LockCore core, Hold hold) {
    CompletableFuture<?> drop = hold.dropLost();
    if (drop == null) {
      return CompletableFuture.failedFuture(core.leaseExpired(hold, "unlock"));
    }
    return drop.handle(
        (reply, failure) -> {
          throw new CompletionException(core.leaseExpired(hold, "unlock"));
        });
  }
}
