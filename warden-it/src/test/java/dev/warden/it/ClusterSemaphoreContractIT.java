package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link SemaphoreContractIT} on a 3+3 Redis Cluster. */
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterSemaphoreContractIT extends SemaphoreContractIT {}
