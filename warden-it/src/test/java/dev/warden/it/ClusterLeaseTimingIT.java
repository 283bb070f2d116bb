package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LeaseTimingIT} on a 3+3 Redis Cluster. */
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterLeaseTimingIT extends LeaseTimingIT {}
