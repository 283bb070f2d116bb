package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link FairLockContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelFairLockContractIT extends FairLockContractIT {}
