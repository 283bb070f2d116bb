package dev.warden.internal.lock.driver;

import dev.warden.internal.redis.Scripts;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Queries of the read side of a read-write lock, each one call of rw-read-query.lua, which counts
 * only readers whose lease has not ended.
 */
final class ReadQueries implements LockQueries {
  private final Scripts scripts;
  private final String[] keys;

  ReadQueries(Scripts scripts, ReadWriteKeys keys) {
    this.scripts = scripts;
    this.keys = new String[] {keys.reads(), keys.readers()};
  }

  private CompletableFuture<List<Object>> query(String owner) {
    return scripts.run(DriverScripts.RW_READ_QUERY, keys, owner);
  }

  @Override
  public CompletableFuture<Boolean> isLocked() {
    return query("").thenApply(reply -> Scripts.number(reply, 0) > 0);
  }

  @Override
  public CompletableFuture<Integer> holdCount(String owner) {
    return query(owner).thenApply(reply -> (int) Scripts.number(reply, 1));
  }

  @Override
  public CompletableFuture<Long> remainTimeToLive() {
    return query("").thenApply(reply -> Scripts.number(reply, 3));
  }

  @Override
  public CompletableFuture<Long> token(String owner) {
    return query(owner)
        .thenApply(reply -> Scripts.number(reply, 2) < 0 ? null : Scripts.number(reply, 2));
  }
}
