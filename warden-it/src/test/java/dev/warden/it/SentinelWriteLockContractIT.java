package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link WriteLockContractIT} on a Sentinel-managed master (a {@code redis-sentinel://} URI). */
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelWriteLockContractIT extends WriteLockContractIT {}
