/**
 * Talking to Redis: the {@link dev.warden.internal.redis.Deployment} seam (every command routed by
 * its first key) and the {@link dev.warden.internal.redis.PubSub} seam, with three deployments
 * behind both: {@link dev.warden.internal.redis.SingleServer} here, and in their own packages a
 * Sentinel-managed master ({@code redis.sentinel}) and a Redis Cluster ({@code redis.cluster}),
 * which share this package's {@link dev.warden.internal.redis.ClientSetup}; the script runner and
 * its one loading rule (the prelude, then the script); blocking calls with retries; errors as
 * {@code WardenException}; the key schema every object shares. Imports {@code base}; never the
 * topology packages above it.
 */
package dev.warden.internal.redis;
