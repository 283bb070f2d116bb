/**
 * A master managed by Redis Sentinel, followed across failovers: {@link
 * dev.warden.internal.redis.sentinel.SentinelDeployment} (the {@code Deployment}) over one master
 * link at a time, the watcher that hears the sentinels, the follower thread that moves the link,
 * and the pub/sub that moves with it. Imports {@code base} and {@code redis}.
 */
package dev.warden.internal.redis.sentinel;
