package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link WriteLockContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelWriteLockContractIT extends WriteLockContractIT {}
