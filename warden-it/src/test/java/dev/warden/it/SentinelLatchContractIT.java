package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LatchContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelLatchContractIT extends LatchContractIT {}
