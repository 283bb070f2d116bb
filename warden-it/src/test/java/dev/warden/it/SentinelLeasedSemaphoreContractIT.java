package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/**
 * {@link LeasedSemaphoreContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI).
 */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelLeasedSemaphoreContractIT extends LeasedSemaphoreContractIT {}
