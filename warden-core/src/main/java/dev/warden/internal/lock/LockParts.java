package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.internal.lock.driver.LockKeys;
import dev.warden.internal.redis.Scripts;

/**
 * What a lock built of other clients' locks (the quorum lock) may know of a part: its keys and the
 * scripts of the client that made it. Reads only; holds are taken through the part's own API.
 */
public final class LockParts {
  private LockParts() {}

  /** Whether {@code lock} is a plain reentrant lock made by some {@code Warden}. */
  public static boolean isReentrantLock(DistributedLock lock) {
    return lock instanceof RedisMutex mutex && mutex.core().driver().joinsGroups();
  }

  /** The keys of a lock for which {@link #isReentrantLock} holds. */
  public static LockKeys keys(DistributedLock lock) {
    return ((RedisMutex) lock).core().driver().keys();
  }

  /** The lease of holds taken without one, as the client that made the lock sets it. */
  public static long watchdogLeaseMillis(DistributedLock lock) {
    return ((RedisMutex) lock).core().context().settings().watchdogLeaseMillis();
  }

  /** The scripts (and so the deployment) of the client that made a reentrant lock. */
  public static Scripts scripts(DistributedLock lock) {
    return ((RedisMutex) lock).core().context().scripts();
  }
}
