package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LeaseTimingIT} on a Sentinel-managed master. */
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelLeaseTimingIT extends LeaseTimingIT {}
