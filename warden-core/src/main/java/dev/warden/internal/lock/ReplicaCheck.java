package dev.warden.internal.lock;

import dev.warden.LockHandle;
import dev.warden.Replication;
import dev.warden.ReplicationException;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.redis.Calls;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Acquisitions under a replication policy ({@link Replication#awaitReplicas}, {@link
 * Replication#requireReplicas}): each grant is followed by {@code WAIT} on the master's dedicated
 * connection ({@link dev.warden.internal.redis.ReplicaWaits}), one more round trip that lasts until
 * the replicas acknowledge or the policy's timeout. Under {@code requireReplicas} a shortfall gives
 * the hold back (the owner-checked release: a repeat finds it gone) and the acquisition starts
 * again while the caller's wait lasts, then throws {@link ReplicationException}. Under {@code
 * Replication.none()} nothing here runs.
 */
final class ReplicaCheck {
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
      int acknowledged = confirm(core, hold, policy);
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
      int acknowledged = confirm(core, hold, policy);
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
   * throws.
   */
  private static int confirm(LockCore core, Hold hold, Replication policy) {
    CompletableFuture<Integer> waited =
        core.context()
            .scripts()
            .redis()
            .replicaWaits()
            .await(core.driver().holdKey(), policy.replicas(), policy.timeout().toMillis());
    int acknowledged;
    try {
      acknowledged =
          Calls.awaitUninterruptibly(waited, core.driver().describe(), "wait for replicas");
    } catch (RuntimeException e) {
      giveBack(core, hold, e);
      throw e;
    }
    if (acknowledged >= policy.replicas() || !policy.required()) {
      return acknowledged;
    }
    giveBack(core, hold, null);
    return -1;
  }

  private static void giveBack(LockCore core, Hold hold, RuntimeException cause) {
    try {
      core.release(hold);
    } catch (RuntimeException e) {
      if (cause != null) {
        cause.addSuppressed(e);
      } else {
        throw e;
      }
    }
  }

  private static ReplicationException shortfall(LockCore core, Replication policy) {
    return new ReplicationException(
        core.driver().describe()
            + ": not acknowledged by "
            + policy.replicas()
            + " replica(s) within "
            + policy.timeout()
            + " before the wait ran out; the hold was given back");
  }
}
