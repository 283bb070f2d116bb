package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.Scripts;
import java.util.concurrent.Executor;

/**
 * What a quorum lock may use of one of its parts, a reentrant lock of one {@code Warden} (made by
 * {@link Locks#quorumPart}): the lock itself, whose holds it takes through the public API; the key
 * of the lock's fence and its client's scripts, to raise the fence; its client's watchdog lease;
 * and its client's seams. Reads nothing else of the lock's internals.
 *
 * @param lock the part, a reentrant lock
 * @param fenceKey the key of the lock's fence (where its tokens are minted)
 * @param scripts the scripts (and so the deployment) of the part's client
 * @param watchdogLeaseMillis the lease the part's client gives holds taken without one
 * @param calls threads of the part's client for a quorum lock's blocking calls to this part ({@code
 *     warden-quorum-N}; they stop when that client closes)
 * @param callbacks the executor that completes the futures users see
 * @param clock the part's client's monotonic clock
 * @param timer the part's client's timer
 */
public record QuorumPart(
    DistributedLock lock,
    String fenceKey,
    Scripts scripts,
    long watchdogLeaseMillis,
    Executor calls,
    Executor callbacks,
    Clock clock,
    Timer timer) {}
