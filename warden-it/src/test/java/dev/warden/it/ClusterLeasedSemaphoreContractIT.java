package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link LeasedSemaphoreContractIT} on a 3+3 Redis Cluster. */
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterLeasedSemaphoreContractIT extends LeasedSemaphoreContractIT {}
