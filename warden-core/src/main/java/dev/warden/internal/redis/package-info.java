/**
 * Talking to Redis: the {@link dev.warden.internal.redis.Deployment} seam (every command routed by
 * its first key) and the {@link dev.warden.internal.redis.PubSub} seam, with {@link
 * dev.warden.internal.redis.SingleServer} or {@link dev.warden.internal.redis.ClusterDeployment}
 * (and its sharded pub/sub) behind both; the script runner and its one loading rule (the prelude,
 * then the script); blocking calls with retries; errors as {@code WardenException}; the key schema
 * every object shares. Imports {@code base}.
 */
package dev.warden.internal.redis;
