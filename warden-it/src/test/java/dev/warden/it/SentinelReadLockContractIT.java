package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link ReadLockContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelReadLockContractIT extends ReadLockContractIT {}
