/**
 * Redis Cluster: {@link dev.warden.internal.redis.cluster.ClusterDeployment} (the {@code
 * Deployment}, each script sent to the master of its slot, the topology followed) and its sharded
 * pub/sub, which follows each channel's slot. Imports {@code base} and {@code redis}.
 */
package dev.warden.internal.redis.cluster;
