package dev.warden.it;

import dev.warden.WakeUps;
import dev.warden.testkit.WardenDeployment;

/**
 * The lock contract of {@link ReentrantLockContractIT} on a 3+3 Redis Cluster with wake-ups
 * published by the client ({@link WakeUps#FROM_CLIENT}): each SPUBLISH goes to the node of the
 * lock's slot, as the script's own would (see {@link ClientWakeUpsContractIT} for every primitive
 * on one server).
 */
@WardenDeployment(
    value = WardenDeployment.Kind.CLUSTER,
    shared = true,
    wakeUps = WakeUps.FROM_CLIENT)
class ClusterClientWakeUpsIT extends ReentrantLockContractIT {}
