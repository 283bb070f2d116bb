package dev.warden.it;

import dev.warden.testkit.WardenDeployment;

/**
 * The lock contract of {@link ReadLockContractIT} on a 3+3 Redis Cluster: the tests' lock names
 * hash to slots on every shard.
 */
@WardenDeployment(value = WardenDeployment.Kind.CLUSTER, shared = true)
class ClusterReadLockContractIT extends ReadLockContractIT {}
