package dev.warden.internal.lock.driver;

import java.util.concurrent.CompletableFuture;

/** The one-read questions a lock answers, each one round trip. */
public interface LockQueries {
  /** Whether any owner holds the lock. */
  CompletableFuture<Boolean> isLocked();

  /** The owner's hold count; 0 when it holds none. */
  CompletableFuture<Integer> holdCount(String owner);

  /** The lock's remaining time to live in ms; negative when not held (as PTTL says). */
  CompletableFuture<Long> remainTimeToLive();

  /** The token of the owner's hold, or null when it holds none. */
  CompletableFuture<Long> token(String owner);
}
