package dev.warden.internal.lock;

import dev.warden.LockHandle;
import dev.warden.Replication;
import dev.warden.ReplicationException;
import dev.warden.internal.base.Timer;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Failures;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquisitions under a replication policy ({@link Replication#awaitReplicas}, {@link
 * Replication#requireReplicas}): each grant is followed by {@code WAIT} on the master's dedicated
 * connection ({@link dev.warden.internal.redis.ReplicaWaits}), one more round trip that lasts until
 * the replicas acknowledge or the policy's timeout. Under {@code requireReplicas} a shortfall gives
 * the hold back (the give-back of that acquisition, by its id: a repeat, or one Redis runs after
 * the next attempt, changes nothing) and the acquisition starts again while the caller's wait
 * lasts, then throws {@link ReplicationException}. Under {@code Replication.none()} nothing here
 * runs.
 *
 * <p>A timed acquisition stays within its wait plus the margin every timed acquisition has ({@link
 * dev.warden.internal.base.Settings#verdictMarginNanos()}): {@code WAIT} is sent with a timeout
 * that ends by then, its reply is waited for no longer than that (no answer counts as no
 * acknowledgement), and the give-back is sent, not waited for (a release Redis never runs ends with
 * the lease).
 */
final class ReplicaCheck {
  private static final Logger log = LoggerFactory.getLogger(ReplicaCheck.class);

  /** What a {@code WAIT} that did not answer within the caller's budget counts as. */
  private static final int NO_ANSWER = -1;

  private ReplicaCheck() {}

  /** The thread-bound acquisition under the policy; false when the lock stayed held too long. */
  static boolean forThread(
      LockCore core, Lease lease, long waitNanos, boolean interruptible, boolean reported)
      throws InterruptedException {
    Replication policy = core.context().settings().replication();
    long deadline = core.now() + waitNanos;
    while (true) {
      long left = waitNanos < 0 ? -1 : Math.max(0, deadline - core.now());
      Hold hold = core.acquireOnceForThread(lease, left, interruptible, reported);
      if (hold == null) {
        return false;
      }
      int acknowledged = confirm(core, hold, policy, waitNanos >= 0, deadline);
      if (acknowledged >= 0) {
        return true;
      }
      if (waitNanos >= 0 && deadline - core.now() <= 0) {
        throw shortfall(core, policy);
      }
    }
  }

  /** The handle acquisition under the policy; empty when the lock stayed held too long. */
  static Optional<LockHandle> forHandle(RedisMutex lock, String owner, Lease lease, long waitNanos)
      throws InterruptedException {
    LockCore core = lock.core();
    Replication policy = core.context().settings().replication();
    long deadline = core.now() + waitNanos;
    while (true) {
      long left = waitNanos < 0 ? -1 : Math.max(0, deadline - core.now());
      Granted granted = core.acquisition(owner, 0, lease.millis(), left).await(true);
      if (granted == null) {
        return Optional.empty();
      }
      Hold hold = core.adopt(null, owner, granted, lease);
      int acknowledged = confirm(core, hold, policy, waitNanos >= 0, deadline);
      if (acknowledged >= 0) {
        return Optional.of(new MutexHandle(lock, hold, acknowledged));
      }
      if (waitNanos >= 0 && deadline - core.now() <= 0) {
        throw shortfall(core, policy);
      }
    }
  }

  /**
   * Waits for the replicas after a grant; returns how many acknowledged, or -1 when the policy
   * required more and the grant was given back. A failed {@code WAIT} gives the grant back too, and
   * throws. When {@code timed}, nothing here lasts past {@code deadline} plus the verdict margin.
   */
  private static int confirm(
      LockCore core, Hold hold, Replication policy, boolean timed, long deadline) {
    long waitMillis = policy.timeout().toMillis();
    long budgetEnd = deadline + core.context().settings().verdictMarginNanos();
    if (timed) {
      // WAIT 0 would block for ever: at least 1 ms
      waitMillis =
          Math.max(1, Math.min(waitMillis, TimeUnit.NANOSECONDS.toMillis(budgetEnd - core.now())));
    }
    CompletableFuture<Integer> waited =
        core.context()
            .scripts()
            .redis()
            .replicaWaits()
            .await(core.driver().holdKey(), policy.replicas(), waitMillis);
    if (timed) {
      waited = byThen(waited, budgetEnd - core.now(), core.context().waiting().timer());
    }
    int acknowledged;
    try {
      acknowledged =
          Calls.awaitUninterruptibly(waited, core.driver().describe(), "wait for replicas");
    } catch (RuntimeException e) {
      giveBack(core, hold);
      throw e;
    }
    if (acknowledged >= policy.replicas() || !policy.required()) {
      return Math.max(0, acknowledged); // no answer in time: none acknowledged as far as we know
    }
    giveBack(core, hold);
    return -1;
  }

  /** The reply of {@code waited}, or {@link #NO_ANSWER} if none came within {@code nanos}. */
  private static CompletableFuture<Integer> byThen(
      CompletableFuture<Integer> waited, long nanos, Timer timer) {
    CompletableFuture<Integer> bounded = new CompletableFuture<>();
    Timer.Scheduled expiry;
    try {
      expiry = timer.schedule(() -> bounded.complete(NO_ANSWER), Math.max(0, nanos));
    } catch (RejectedExecutionException closed) {
      return waited; // the Warden is closing: its connections end the WAIT
    }
    var unused =
        waited.whenComplete(
            (count, failure) -> {
              expiry.cancel();
              if (failure != null) {
                bounded.completeExceptionally(failure);
              } else {
                bounded.complete(count);
              }
            });
    return bounded;
  }

  /** Gives the grant back, not waiting for the reply; a failure is logged (the lease bounds it). */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void giveBack(LockCore core, Hold hold) {
    core.giveBackAsync(hold)
        .whenComplete(
            (released, failure) -> {
              if (failure != null) {
                log.warn(
                    "{}: could not give back a hold its replicas did not acknowledge; it expires"
                        + " with its lease: {}",
                    core.driver().describe(),
                    Failures.unwrap(failure).toString());
              }
            });
  }

  private static ReplicationException shortfall(LockCore core, Replication policy) {
    return new ReplicationException(
        core.driver().describe()
            + ": not acknowledged by "
            + policy.replicas()
            + " replica(s) within "
            + policy.timeout()
            + " (nor before the wait ran out); the hold was given back");
  }
}
