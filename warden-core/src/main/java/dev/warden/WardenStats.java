package dev.warden;

/**
 * What one {@link Warden} instance is doing now, for metrics and leak checks.
 *
 * @param holds holds this instance knows it has (thread-bound and handles)
 * @param renewedHolds holds the lease keeper renews
 * @param leaseKeeperRunning whether the lease keeper's ticker is scheduled: while it renews holds,
 *     and for up to a third of the watchdog timeout after the last of them was released
 * @param subscriptions pub/sub channels subscribed to for waiting acquirers
 * @param acquisitions acquisitions in progress (waiting or about to complete)
 * @param parkedWaiters of those, the ones parked until a release message or their next re-check
 * @param replicatedAcquisitions acquisitions that waited for replicas ({@link Replication}) and
 *     were acknowledged by as many as asked (since 0.2)
 * @param replicationShortfalls acquisitions that waited for replicas and were acknowledged by fewer
 *     than asked: kept under {@code awaitReplicas}, given back under {@code requireReplicas} (since
 *     0.2)
 * @since 0.2
 */
public record WardenStats(
    int holds,
    int renewedHolds,
    boolean leaseKeeperRunning,
    int subscriptions,
    int acquisitions,
    int parkedWaiters,
    long replicatedAcquisitions,
    long replicationShortfalls) {}
