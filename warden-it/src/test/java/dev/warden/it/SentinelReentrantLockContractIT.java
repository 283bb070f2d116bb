package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/**
 * {@link ReentrantLockContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI).
 */
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelReentrantLockContractIT extends ReentrantLockContractIT {}
