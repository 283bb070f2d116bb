package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LeaseTimingIT} on a 3+3 Redis Cluster. */
@WardenDeployment(value = WardenDeployment.Kind.CLUSTER, shared = true)
class ClusterLeaseTimingIT extends LeaseTimingIT {}
