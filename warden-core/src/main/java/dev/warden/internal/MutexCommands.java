package dev.warden.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The reentrant lock's script calls and the parsing of their replies; all asynchronous. */
final class MutexCommands {
  /** The reply of one acquisition attempt. */
  record Attempt(boolean acquired, long token, int holdCount, long ttlMillis) {}

  /** The reply of one release: whether the owner held the lock, and its holds afterwards. */
  record Release(boolean held, int remaining) {}

  private final Scripts scripts;
  private final String fenceRetentionMillis;

  MutexCommands(Scripts scripts, long fenceRetentionMillis) {
    this.scripts = scripts;
    this.fenceRetentionMillis = Long.toString(fenceRetentionMillis);
  }

  CompletableFuture<Attempt> acquire(
      LockKeys keys, String owner, int heldBefore, long leaseMillis, boolean othersWait) {
    return scripts
        .run(
            Scripts.LOCK_ACQUIRE,
            new String[] {keys.lock(), keys.fence()},
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            othersWait ? "1" : "0",
            fenceRetentionMillis)
        .thenApply(
            reply ->
                number(reply, 0) == 1
                    ? new Attempt(true, number(reply, 1), (int) number(reply, 2), -1)
                    : new Attempt(false, -1, 0, number(reply, 1)));
  }

  CompletableFuture<Release> release(LockKeys keys, String owner, int heldBefore) {
    return scripts
        .run(
            Scripts.LOCK_RELEASE,
            new String[] {keys.lock()},
            owner,
            Integer.toString(heldBefore),
            keys.channel())
        .thenApply(
            reply ->
                number(reply, 0) == 1
                    ? new Release(true, (int) number(reply, 1))
                    : new Release(false, 0));
  }

  /** Renews a batch of holds; the reply says, per hold, whether it was still held. */
  CompletableFuture<List<Object>> renew(List<Hold> holds, long leaseMillis) {
    String[] keys = new String[holds.size()];
    String[] args = new String[holds.size() + 1];
    args[0] = Long.toString(leaseMillis);
    for (int i = 0; i < keys.length; i++) {
      Hold hold = holds.get(i);
      keys[i] = hold.keys.lock();
      args[i + 1] = hold.owner;
    }
    return scripts.run(Scripts.LOCK_RENEW, keys, args);
  }

  CompletableFuture<Boolean> forceRelease(LockKeys keys) {
    return scripts
        .run(Scripts.LOCK_FORCE_RELEASE, new String[] {keys.lock()}, keys.channel())
        .thenApply(reply -> number(reply, 0) == 1);
  }

  CompletableFuture<List<Object>> inspect(LockKeys keys) {
    return scripts.run(Scripts.LOCK_INSPECT, new String[] {keys.lock(), keys.fence()});
  }

  static long number(List<Object> reply, int index) {
    Object value = reply.get(index);
    if (value instanceof Number) {
      return ((Number) value).longValue();
    }
    return Long.parseLong(String.valueOf(value));
  }
}
