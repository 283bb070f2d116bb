package dev.warden.integration;

import dev.warden.LockHandle;
import dev.warden.Warden;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} on
 * Warden's locks: {@code obtain(key)} returns a {@link DistributedLock} over the Warden lock named
 * key prefix plus {@code key.toString()}, so that every registry with the same prefix on the same
 * Redis, in any process, shares it. It plugs into Spring Integration's leader election ({@code
 * LockRegistryLeaderInitiator}), aggregators, {@code LockRequestHandlerAdvice} and the other users
 * of a {@code LockRegistry}.
 *
 * <pre>{@code
 * WardenLockRegistry registry = new WardenLockRegistry(warden, "orders:");
 * Lock lock = registry.obtain("invoice-42");     // Warden lock "orders:invoice-42"
 * lock.lock();
 * try {
 *   charge(invoice);
 * } finally {
 *   lock.unlock();
 * }
 * }</pre>
 *
 * <p><b>Semantics.</b> The locks follow {@link java.util.concurrent.locks.Lock}: a hold belongs to
 * the thread that took it, in this registry. Each thread's hold is a {@link LockHandle} (its own
 * owner in Redis) plus a local count of reentrant holds, so two threads of one process exclude each
 * other through Redis as two processes do.
 *
 * <ul>
 *   <li>{@code lock()}, {@code lockInterruptibly()}, {@code tryLock()} and {@code tryLock(time,
 *       unit)} take a lease that Warden's lease keeper renews until unlock (the {@code Warden}'s
 *       watchdog timeout, 30 s by default); {@code lock(ttl)} and {@code tryLock(waitTime, ttl)}
 *       take a fixed lease that only {@link #renewLock(Object, Duration)} lengthens.
 *   <li>A reentrant acquisition asks Redis whether the thread's hold still exists (one round trip,
 *       as {@code RedisLockRegistry} does) and keeps its lease as it is. If the hold was lost, a
 *       {@code tryLock} returns false and {@code lock()} throws {@link
 *       dev.warden.LeaseExpiredException}; the hold is then forgotten, so the thread's next
 *       acquisition starts afresh. That is how {@code LockRegistryLeaderInitiator}, which re-tries
 *       its lock at every heartbeat, learns that leadership is gone.
 *   <li>{@code unlock()} by a thread that holds nothing throws {@link
 *       IllegalMonitorStateException}; the last unlock of a hold whose lease ran out (or was
 *       force-unlocked) throws {@link dev.warden.LeaseExpiredException}, an {@code
 *       IllegalMonitorStateException}, and never frees another owner's lock. ({@code
 *       RedisLockRegistry} throws {@code IllegalStateException} and {@code
 *       ConcurrentModificationException} for these.)
 *   <li>{@code newCondition()} throws {@link UnsupportedOperationException}, as in {@code
 *       RedisLockRegistry}.
 * </ul>
 *
 * <p><b>Lease expiry, failover, partition.</b> A hold whose lease runs out (a fixed lease not
 * renewed, the {@code Warden} closed, Redis unreachable for longer than the lease, a failover that
 * lost the key) may be taken by another owner at once; this thread learns it at its next reentrant
 * acquisition, {@link #renewLock(Object)} or unlock, as described above. Redis failures surface as
 * {@link dev.warden.WardenException}.
 *
 * <p><b>Cache.</b> Obtained locks are cached by key, at most {@link #setCacheCapacity(int)} of them
 * (100 000 by default; the least recently used unheld ones go first). The holds live in the
 * registry, not in the lock objects, so a lock dropped from the cache while in use keeps working,
 * and a thread's hold never goes astray. {@link #expireUnusedOlderThan(long)} drops the ones no
 * thread holds that were last obtained or acquired longer ago than the age.
 *
 * <p>Thread-safe. An acquisition, a reentrant acquisition, a release and a renewal cost one round
 * trip each; an inner unlock none. Holds are scoped by the registry: another registry (or the
 * {@code Warden} lock itself) is another owner, even in the same thread. A thread that ends without
 * unlocking leaves its hold renewed until the {@code Warden} is closed, as a {@code Lock} left
 * locked stays locked. The registry does not own the {@code Warden}: close it yourself, after
 * whatever uses the registry has stopped (closing it does not release held locks; they expire after
 * the lease).
 *
 * @since 0.2
 */
public final class WardenLockRegistry
    implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
  /** The key prefix used unless one is given: {@value}. */
  public static final String DEFAULT_PREFIX = "spring-integration:";

  /** The number of lock objects cached unless {@link #setCacheCapacity(int)} says otherwise. */
  public static final int DEFAULT_CACHE_CAPACITY = 100_000;

  private final Warden warden;
  private final String prefix;
  private final Map<String, WardenRegistryLock> cache =
      new LinkedHashMap<>(16, 0.75f, /* accessOrder= */ true); // guarded by itself
  private final Map<Owner, WardenRegistryLock.Hold> holds = new ConcurrentHashMap<>();
  private volatile int cacheCapacity = DEFAULT_CACHE_CAPACITY;

  /**
   * Creates a registry whose locks are Warden locks named {@value #DEFAULT_PREFIX} plus the key.
   *
   * @param warden the Warden that takes the locks
   * @throws NullPointerException if {@code warden} is null
   */
  public WardenLockRegistry(Warden warden) {
    this(warden, DEFAULT_PREFIX);
  }

  /**
   * Creates a registry whose locks are Warden locks named {@code prefix} plus the key (the registry
   * key of {@code RedisLockRegistry}), e.g. {@code "billing:"}; registries with the same prefix
   * share their locks.
   *
   * @param warden the Warden that takes the locks
   * @param prefix put in front of every key; may be empty; no braces
   * @throws NullPointerException if {@code warden} or {@code prefix} is null
   */
  public WardenLockRegistry(Warden warden, String prefix) {
    this.warden = Objects.requireNonNull(warden, "warden");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
  }

  /**
   * Returns the lock for {@code lockKey}: the Warden lock named prefix plus {@code
   * lockKey.toString()}. The same object is returned while it stays in the cache. No round trip.
   *
   * @param lockKey the lock's key; its {@code toString()} names it
   * @return the lock
   * @throws NullPointerException if {@code lockKey} is null
   * @throws IllegalArgumentException if the name is empty or contains a brace
   */
  @Override
  public DistributedLock obtain(Object lockKey) {
    String key = key(lockKey);
    synchronized (cache) {
      WardenRegistryLock lock = cache.get(key);
      if (lock == null) {
        lock = new WardenRegistryLock(this, key, warden.lock(lockName(key)));
        cache.put(key, lock);
        trimToCapacity();
      } else {
        lock.touch();
      }
      return lock;
    }
  }

  /**
   * Drops from the cache the locks that no thread holds and that were last obtained or acquired at
   * least {@code age} milliseconds ago. Locks held by a thread are always kept.
   *
   * @param age in milliseconds; zero drops every lock not held
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    long now = System.nanoTime();
    long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
    Set<String> held = heldKeys();
    synchronized (cache) {
      cache
          .values()
          .removeIf(lock -> !held.contains(lock.key()) && now - lock.lastUsedNanos() >= ageNanos);
    }
  }

  /**
   * Renews the calling thread's hold of the lock for {@code lockKey}, owner-checked: a hold taken
   * with a ttl gets that ttl again from now; a hold renewed by the lease keeper is confirmed in
   * Redis (the lease keeper keeps renewing it). One round trip.
   *
   * @param lockKey the lock's key
   * @throws IllegalStateException if the calling thread does not hold the lock, or its hold was
   *     lost (the lease ran out, or it was force-unlocked); nothing is changed in Redis then
   * @throws dev.warden.WardenException if Redis could not be reached
   */
  @Override
  public void renewLock(Object lockKey) {
    WardenRegistryLock.Hold hold = heldOrThrow(lockKey);
    boolean held = hold.lease == null ? hold.handle.isHeld() : hold.handle.extend(hold.lease);
    if (!held) {
      hold.lost = true;
      throw lost(lockKey);
    }
  }

  /**
   * Sets the calling thread's hold of the lock for {@code lockKey} to a fixed lease of {@code ttl}
   * from now, owner-checked ({@link LockHandle#extend(Duration)}); from then on the lease keeper no
   * longer renews it. One round trip.
   *
   * @param lockKey the lock's key
   * @param ttl the new lease; positive
   * @throws IllegalArgumentException if {@code ttl} is null, zero or negative
   * @throws IllegalStateException if the calling thread does not hold the lock, or its hold was
   *     lost (the lease ran out, or it was force-unlocked); nothing is changed in Redis then
   * @throws dev.warden.WardenException if Redis could not be reached
   */
  @Override
  public void renewLock(Object lockKey, Duration ttl) {
    WardenRegistryLock.requirePositive(ttl);
    WardenRegistryLock.Hold hold = heldOrThrow(lockKey);
    if (!hold.handle.extend(ttl)) {
      hold.lost = true;
      throw lost(lockKey);
    }
    hold.lease = ttl;
  }

  /**
   * Ignores the scheduler: Warden's lease keeper already renews the holds taken without a ttl, and
   * a hold taken with one keeps it, as asked.
   *
   * @param renewalTaskScheduler ignored
   */
  @Override
  public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
    // Nothing to schedule: see the Javadoc.
  }

  /**
   * Returns the fencing token of the calling thread's hold of the lock for {@code lockKey}:
   * strictly greater than the token of every earlier acquisition of that lock by any owner. Pass it
   * to the resource the lock protects, so that it can refuse writes of a holder whose lease ran
   * out. No round trip.
   *
   * @param lockKey the lock's key
   * @return the hold's fencing token
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock, or its hold
   *     is known to be lost
   */
  public long fencingToken(Object lockKey) {
    WardenRegistryLock.Hold hold = holds.get(owner(key(lockKey)));
    if (hold == null || hold.lost) {
      throw new IllegalMonitorStateException(
          "lock '" + lockName(key(lockKey)) + "' is not held by thread " + Thread.currentThread());
    }
    return hold.handle.fencingToken();
  }

  /**
   * Sets how many lock objects the cache keeps at most; beyond it the least recently used ones that
   * no thread holds are dropped. Held locks are never dropped, so a cache full of held locks grows
   * past the capacity until they are released.
   *
   * @param cacheCapacity the capacity; positive
   * @throws IllegalArgumentException if {@code cacheCapacity} is not positive
   */
  public void setCacheCapacity(int cacheCapacity) {
    if (cacheCapacity <= 0) {
      throw new IllegalArgumentException("cacheCapacity must be positive: " + cacheCapacity);
    }
    this.cacheCapacity = cacheCapacity;
    synchronized (cache) {
      trimToCapacity();
    }
  }

  /**
   * Returns the Warden lock name that a key maps to.
   *
   * @param lockKey the lock's key
   * @return the prefix followed by {@code lockKey.toString()}
   * @throws NullPointerException if {@code lockKey} is null
   */
  public String lockName(Object lockKey) {
    return prefix + key(lockKey);
  }

  @Override
  public String toString() {
    return "WardenLockRegistry[prefix '" + prefix + "']";
  }

  private void trimToCapacity() {
    int capacity = cacheCapacity;
    if (cache.size() <= capacity) {
      return;
    }
    Set<String> held = heldKeys();
    for (Iterator<WardenRegistryLock> it = cache.values().iterator();
        it.hasNext() && cache.size() > capacity; ) {
      if (!held.contains(it.next().key())) {
        it.remove();
      }
    }
  }

  /** The number of lock objects in the cache now (for tests). */
  int cachedLocks() {
    synchronized (cache) {
      return cache.size();
    }
  }

  private Set<String> heldKeys() {
    return holds.keySet().stream().map(Owner::key).collect(Collectors.toSet());
  }

  private WardenRegistryLock.Hold heldOrThrow(Object lockKey) {
    WardenRegistryLock.Hold hold = holds.get(owner(key(lockKey)));
    if (hold == null || hold.lost) {
      throw new IllegalStateException(
          "cannot renew lock '"
              + lockName(lockKey)
              + "': it is not held by thread "
              + Thread.currentThread());
    }
    return hold;
  }

  private IllegalStateException lost(Object lockKey) {
    return new IllegalStateException(
        "cannot renew lock '"
            + lockName(lockKey)
            + "': the hold of thread "
            + Thread.currentThread()
            + " was lost (its lease ran out or it was force-unlocked)");
  }

  private static String key(Object lockKey) {
    return Objects.requireNonNull(lockKey, "lockKey").toString();
  }

  Owner owner(String key) {
    return new Owner(key, Thread.currentThread());
  }

  WardenRegistryLock.Hold holdOf(Owner owner) {
    return holds.get(owner);
  }

  void putHold(Owner owner, WardenRegistryLock.Hold hold) {
    holds.put(owner, hold);
  }

  void dropHold(Owner owner) {
    holds.remove(owner);
  }

  /** A thread's claim on one key of this registry. */
  record Owner(String key, Thread thread) {}
}
