package dev.warden.internal;

import java.util.concurrent.CompletableFuture;

/**
 * Queries on a lock hash of owner to hold count with the token in field {@code #t}: the shape of
 * the reentrant lock, the fair lock and the write lock.
 */
final class HashHolds {
  private HashHolds() {}

  static CompletableFuture<Boolean> isLocked(WardenRuntime runtime, String key) {
    // HLEN, not EXISTS: a key of another type is reported (WRONGTYPE), not taken for a lock
    return runtime.redis().hlen(key).toCompletableFuture().thenApply(fields -> fields > 0);
  }

  static CompletableFuture<Integer> holdCount(WardenRuntime runtime, String key, String owner) {
    return runtime
        .redis()
        .hget(key, owner)
        .toCompletableFuture()
        .thenApply(count -> count == null ? 0 : Integer.parseInt(count));
  }

  static CompletableFuture<Long> token(WardenRuntime runtime, String key, String owner) {
    return runtime
        .redis()
        .hmget(key, owner, "#t")
        .toCompletableFuture()
        .thenApply(
            values ->
                values.get(0).hasValue() && values.get(1).hasValue()
                    ? Long.parseLong(values.get(1).getValue())
                    : null);
  }
}
