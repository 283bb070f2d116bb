package dev.warden.shedlock;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock lock provider on Warden's locks, so that a scheduled job runs on one instance at a
 * time: each ShedLock lock is a hold of the Warden lock named key prefix plus the job's name, owned
 * by a {@link LockHandle} (not by a thread, so ShedLock's {@code KeepAliveLockProvider} may extend
 * it from its scheduler thread).
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the hold's lease: Warden's lease keeper never renews it, so a job
 *       that outlives it loses the lock, as ShedLock expects.
 *   <li>An unlock before {@code lockAtLeastUntil} keeps the lock until then ({@link
 *       LockHandle#closeAfter(Duration)}).
 *   <li>{@code extend} is owner-checked ({@link LockHandle#extend(Duration)}): a hold that expired
 *       is not revived and another owner's lock is never touched; it returns a new lock, and the
 *       old one is invalid.
 *   <li>A lock held elsewhere gives an empty result at once: ShedLock skips the run, never waits.
 *   <li>A late unlock, after the lease ran out, leaves whoever holds the lock now alone; it is
 *       logged, not thrown.
 * </ul>
 *
 * <pre>{@code
 * Warden warden = Warden.connect("redis://localhost:6379");
 * LockProvider provider = new WardenLockProvider(warden);            // keys "shedlock:<job>"
 * LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
 * executor.executeWithLock(
 *     (Runnable) this::sendReport,
 *     new LockConfiguration(ClockProvider.now(), "report", Duration.ofMinutes(10), Duration.ofMinutes(1)));
 * }</pre>
 *
 * <p>Durations are counted from ShedLock's {@link ClockProvider} (this JVM's clock) to the
 * configuration's instants; Redis expires the hold by its own clock. Thread-safe. {@code lock},
 * {@code extend} and {@code unlock} cost one round trip each. The provider does not own the {@code
 * Warden}: close it yourself, after the scheduler stopped.
 *
 * @since 0.2
 */
public final class WardenLockProvider implements ExtensibleLockProvider {
  /** The key prefix used unless one is given: {@code "shedlock:"}. */
  public static final String DEFAULT_PREFIX = "shedlock:";

  private static final Logger log = LoggerFactory.getLogger(WardenLockProvider.class);
  private static final Duration SHORTEST_LEASE = Duration.ofMillis(1);

  private final Warden warden;
  private final String prefix;

  /**
   * Creates a provider whose locks are Warden locks named {@value #DEFAULT_PREFIX} plus the job's
   * lock name.
   *
   * @param warden the Warden that takes the locks
   */
  public WardenLockProvider(Warden warden) {
    this(warden, DEFAULT_PREFIX);
  }

  /**
   * Creates a provider whose locks are Warden locks named {@code prefix} plus the job's lock name,
   * e.g. {@code "billing:shedlock:"} so that several applications can share one Redis.
   *
   * @param warden the Warden that takes the locks
   * @param prefix put in front of every lock name; may be empty
   * @throws NullPointerException if {@code warden} or {@code prefix} is null
   */
  public WardenLockProvider(Warden warden, String prefix) {
    this.warden = Objects.requireNonNull(warden, "warden");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
  }

  /**
   * Takes the lock for {@code lockAtMostFor} if no one holds it, without waiting.
   *
   * @param configuration the job's lock name and times
   * @return the lock, or empty if another owner holds it (or the calling thread was interrupted)
   * @throws dev.warden.WardenException if Redis could not be reached
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration configuration) {
    Duration lease = until(configuration.getLockAtMostUntil(), SHORTEST_LEASE);
    Optional<LockHandle> hold;
    try {
      hold = warden.lock(lockName(configuration.getName())).tryAcquire(Duration.ZERO, lease);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
    return hold.map(handle -> new WardenLock(configuration, handle));
  }

  /**
   * Returns the Warden lock name that a ShedLock lock name maps to.
   *
   * @param name ShedLock's lock name
   * @return the prefix followed by {@code name}
   */
  public String lockName(String name) {
    return prefix + name;
  }

  /** The time from now until {@code instant}, at least {@code floor}. */
  private static Duration until(Instant instant, Duration floor) {
    Duration left = Duration.between(ClockProvider.now(), instant);
    return left.compareTo(floor) < 0 ? floor : left;
  }

  @Override
  public String toString() {
    return "WardenLockProvider[prefix '" + prefix + "']";
  }

  /** One ShedLock lock: a Warden hold; invalid after unlock or extend (AbstractSimpleLock). */
  private static final class WardenLock extends AbstractSimpleLock {
    private final LockHandle handle;

    WardenLock(LockConfiguration configuration, LockHandle handle) {
      super(configuration);
      this.handle = handle;
    }

    @Override
    protected void doUnlock() {
      Duration keepFor = until(lockConfiguration.getLockAtLeastUntil(), Duration.ZERO);
      try {
        handle.closeAfter(keepFor);
      } catch (LeaseExpiredException expired) {
        // The lease (lockAtMostFor) ran out before the job ended; whoever holds the lock now keeps
        // it. Not thrown: the job ran, and there is nothing left to release.
        log.warn(
            "ShedLock lock '{}' had expired before its unlock (lockAtMostFor {} too short?): {}",
            lockConfiguration.getName(),
            lockConfiguration.getLockAtMostFor(),
            expired.getMessage());
      }
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
      Duration lease = until(newConfiguration.getLockAtMostUntil(), SHORTEST_LEASE);
      if (!handle.extend(lease)) {
        return Optional.empty();
      }
      return Optional.of(new WardenLock(newConfiguration, handle));
    }

    @Override
    public String toString() {
      return "WardenLock[" + lockConfiguration.getName() + ", " + handle + "]";
    }
  }
}
