package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/** {@link SemaphoreContractIT} on a 3+3 Redis Cluster. */
@WardenDeployment(value = WardenDeployment.Kind.CLUSTER, shared = true)
class ClusterSemaphoreContractIT extends SemaphoreContractIT {}
