package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LatchContractIT} on a 3+3 Redis Cluster. */
@WardenDeployment(value = WardenDeployment.Kind.CLUSTER, shared = true)
class ClusterLatchContractIT extends LatchContractIT {}
