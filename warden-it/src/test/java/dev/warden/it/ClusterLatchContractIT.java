package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LatchContractIT} on a 3+3 Redis Cluster. */
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterLatchContractIT extends LatchContractIT {}
