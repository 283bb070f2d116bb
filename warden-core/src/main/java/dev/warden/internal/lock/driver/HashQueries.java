package dev.warden.internal.lock.driver;

import dev.warden.internal.redis.Deployment;
import java.util.concurrent.CompletableFuture;

/**
 * Queries of a lock kept as a hash of owner to hold count with the token in {@code #t} (the
 * reentrant lock, the fair lock, the write lock).
 */
final class HashQueries implements LockQueries {
  private final Deployment redis;
  private final String hash;

  HashQueries(Deployment redis, String hash) {
    this.redis = redis;
    this.hash = hash;
  }

  @Override
  public CompletableFuture<Boolean> isLocked() {
    // the token, not EXISTS: a key of another type is reported (WRONGTYPE), not taken for a
    // lock, and a lock only reserved for other clients after a release (lock-release.lua) is free
    return redis.command(hash, r -> r.hexists(hash, "#t"));
  }

  @Override
  public CompletableFuture<Integer> holdCount(String owner) {
    return redis
        .command(hash, r -> r.hget(hash, owner))
        .thenApply(count -> count == null ? 0 : Integer.parseInt(count));
  }

  @Override
  public CompletableFuture<Long> remainTimeToLive() {
    // both sent at once, one round trip: a lock only reserved after a release is not locked
    return isLocked()
        .thenCombine(redis.command(hash, r -> r.pttl(hash)), (locked, ttl) -> locked ? ttl : -2L);
  }

  @Override
  public CompletableFuture<Long> token(String owner) {
    return redis
        .command(hash, r -> r.hmget(hash, owner, "#t"))
        .thenApply(
            values ->
                values.get(0).hasValue() && values.get(1).hasValue()
                    ? Long.parseLong(values.get(1).getValue())
                    : null);
  }
}
