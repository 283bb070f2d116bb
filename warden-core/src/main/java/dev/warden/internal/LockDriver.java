package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What differs between lock types (reentrant, fair, read, write): their Redis data and scripts.
 * {@link RedisMutex} does the rest (the API, local holds, handles, waiting), in the manner of
 * Curator's mutex, internals and driver.
 */
interface LockDriver {
  /** The reply of one acquisition attempt. */
  record Attempt(boolean acquired, long token, int holdCount, long retryAfterMillis) {
    static Attempt acquired(long token, int holdCount) {
      return new Attempt(true, token, holdCount, 0);
    }

    static Attempt busy(long retryAfterMillis) {
      return new Attempt(false, -1, 0, retryAfterMillis);
    }
  }

  /**
   * The reply of one release: whether the owner held the lock, its holds afterwards, and whom of
   * this client's waiters to wake: {@link #WAKE_ONE}, {@link #WAKE_ALL}, {@link #WAKE_NONE}, or a
   * waiter id.
   */
  record Release(boolean held, int remaining, String wake) {}

  /** Wake the longest-parked local waiter. */
  String WAKE_ONE = "";

  /** Wake every local waiter. */
  String WAKE_ALL = "all";

  /** Wake nobody: the lock went straight to a waiter of this client. */
  String WAKE_NONE = "none";

  /** The runtime whose connection and scripts the driver uses. */
  WardenRuntime runtime();

  /** The lock's name, label and main key. */
  LockKeys keys();

  /** Names the object in messages, e.g. {@code fair lock 'orders'}. */
  default String describe() {
    return keys().describe();
  }

  /** The lock's name as the user gave it. */
  default String name() {
    return keys().name();
  }

  /** The key that identifies holds: with the owner, it names a local {@link Hold}. */
  default String holdKey() {
    return keys().lock();
  }

  /** The channel releases are published on. */
  default String channel() {
    return keys().channel();
  }

  /**
   * Tries once.
   *
   * @param acquisitionId unique per acquisition: a retry of the same acquisition that finds its
   *     first try applied changes nothing, while a hold left by another (abandoned) acquisition of
   *     the same owner is not mistaken for it
   * @param heldBefore the owner's hold count as the client knows it
   * @param othersWait other local acquirers wait: the release must publish
   * @param willWait the caller waits if refused (a fair lock queues it; {@code tryLock()} not)
   */
  CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait);

  /** Gives back one hold (see {@link Release}). */
  CompletableFuture<Release> release(String owner, int heldBefore);

  /** Removes a waiter that gave up from whatever queue it joined; a no-op for most locks. */
  default CompletableFuture<?> leave(String owner) {
    return CompletableFuture.completedFuture(null);
  }

  /** The id under which a waiter is woken alone, or null when wake-ups are not targeted. */
  default String waiterId(String owner) {
    return null;
  }

  /** Whether the lock offers conditions (the read lock does not, as in the JDK). */
  default boolean supportsConditions() {
    return true;
  }

  /** Deletes every hold whoever owns it and wakes waiters; true if there was one. */
  CompletableFuture<Boolean> forceRelease();

  // ---- for a hold key that is a hash of owner to hold count with the token in '#t' (the
  // reentrant lock, the fair lock, the write lock); the read lock overrides them ----

  /** The script that renews holds of this type, and the keys it needs per hold. */
  default Scripts.Script renewScript() {
    return Scripts.LOCK_RENEW;
  }

  default List<String> renewKeys() {
    return List.of(holdKey());
  }

  default CompletableFuture<Boolean> isLocked() {
    // HLEN, not EXISTS: a key of another type is reported (WRONGTYPE), not taken for a lock
    return runtime().redis().hlen(holdKey()).toCompletableFuture().thenApply(fields -> fields > 0);
  }

  default CompletableFuture<Integer> holdCount(String owner) {
    return runtime()
        .redis()
        .hget(holdKey(), owner)
        .toCompletableFuture()
        .thenApply(count -> count == null ? 0 : Integer.parseInt(count));
  }

  default CompletableFuture<Long> remainTimeToLive() {
    return runtime().redis().pttl(holdKey()).toCompletableFuture();
  }

  /** The token of the owner's hold, or null when it holds none. */
  default CompletableFuture<Long> token(String owner) {
    return runtime()
        .redis()
        .hmget(holdKey(), owner, "#t")
        .toCompletableFuture()
        .thenApply(
            values ->
                values.get(0).hasValue() && values.get(1).hasValue()
                    ? Long.parseLong(values.get(1).getValue())
                    : null);
  }
}
