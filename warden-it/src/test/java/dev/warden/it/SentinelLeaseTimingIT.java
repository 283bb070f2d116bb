package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LeaseTimingIT} on a Sentinel-managed master. */
@WardenDeployment(value = WardenDeployment.Kind.SENTINEL, shared = true)
class SentinelLeaseTimingIT extends LeaseTimingIT {}
