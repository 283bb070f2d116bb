package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link SemaphoreContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelSemaphoreContractIT extends SemaphoreContractIT {}
