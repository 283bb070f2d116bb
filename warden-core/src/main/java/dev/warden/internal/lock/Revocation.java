package dev.warden.internal.lock;

import dev.warden.LeaseExpiredException;
import dev.warden.WardenListener;
import dev.warden.internal.lease.Hold;
import java.util.concurrent.CompletableFuture;

/** How a graceful close ends a hold on its owner's behalf. */
final class Revocation {
  private Revocation() {}

  /**
   * Ends a hold on its owner's behalf (the Warden closes gracefully and its grace ran out), if it
   * is plainly held: marks it lost, so that its owner is told ({@code leaseLost()}, listeners, and
   * its next {@code unlock()} throws {@link LeaseExpiredException} with {@code reason}), stops
   * renewing it (its record stays for the owner's unlock), and sends one owner-checked release of
   * every hold the owner has on it, not waited for. A hold being released by its owner is left to
   * that release; one that is no longer the owner's in Redis is not touched there (the release
   * checks the owner, so it can never free another's hold).
   */
  static CompletableFuture<?> revoke(LockCore core, Hold hold, String reason) {
    LockContext context = core.context();
    if (!hold.markLost(reason, WardenListener.LossReason.SHUTDOWN, context.callbacks())) {
      return CompletableFuture.completedFuture(null);
    }
    context.holds().lost(hold);
    // a release as of a count of one: the owner keeps none, whatever it counted
    return core.driver()
        .release(hold.owner(), 1, core.newAcquisitionId())
        .thenAccept(r -> core.wakeLocal(r.wake()));
  }
}
