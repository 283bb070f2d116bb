package dev.warden;

import java.util.concurrent.TimeUnit;

/**
 * A semaphore whose permits are leased: each acquired permit has an id and a lease, measured by the
 * Redis server's clock, and a permit whose lease ends returns to the pool by itself. So a process
 * that dies holding permits does not keep them: they come back when their leases end.
 *
 * <pre>{@code
 * LeasedSemaphore exports = warden.leasedSemaphore("export-slots");
 * exports.trySetPermits(3);
 * String permit = exports.tryAcquire(5, 60, TimeUnit.SECONDS);   // wait 5 s, lease 60 s
 * if (permit != null) {
 *   try {
 *     runExport();                                   // longer? exports.updateLeaseTime(permit, ...)
 *   } finally {
 *     exports.tryRelease(permit);                    // false if the lease had run out meanwhile
 *   }
 * }
 * }</pre>
 *
 * <p><b>Permits and ids.</b> Permit ids are 128 random bits in hex, unguessable; any thread or
 * process that has an id may release it or extend its lease. A semaphore has no permits until
 * {@link #trySetPermits} sets them (or {@link #addPermits} adds some); until then acquirers find
 * none free and wait.
 *
 * <p><b>Expiry.</b> A permit whose lease has ended counts as free at once ({@link
 * #availablePermits()}), and the next acquisition takes it; nothing sweeps in the background, and
 * no call returns more than 100 expired permits to the pool at once, so every call's work is
 * bounded. A waiter that finds no permit free sleeps until the earliest lease ends, a release wakes
 * it (Redis pub/sub), or its {@code recheckInterval} passes: an expired permit reaches a waiter
 * promptly, without any message. Releasing or extending a permit whose lease has ended fails
 * ({@code false}, or {@link IllegalArgumentException} from {@link #release}): by then somebody else
 * may hold it.
 *
 * <p><b>Fairness.</b> None beyond arrival at Redis: every acquisition asks for one permit, and a
 * release wakes one waiter in each process that waits.
 *
 * <p><b>Cost.</b> Each call is one script call (one round trip). An acquisition that finds a permit
 * free costs one call; a release publishes only when somebody waits.
 *
 * <p><b>Failures.</b> A Redis failure throws {@link WardenException} naming the semaphore after the
 * command timeout; calls are retried within it, and a retried acquisition or release never counts
 * twice. Leases and counts live in Redis and are lost with Redis data (a restart without
 * persistence, a failover to a replica that had not received them): the semaphore is then unset and
 * the ids unknown.
 *
 * <p>Instances are thread-safe and cheap; all instances of one name share one state.
 *
 * @since 0.2
 */
public interface LeasedSemaphore {
  /**
   * Sets the number of free permits if they were never set; returns {@code false}, changing
   * nothing, if they were.
   *
   * @param permits the number of free permits to start with
   * @return {@code true} if this call set them
   * @throws IllegalArgumentException if {@code permits} is negative
   */
  boolean trySetPermits(int permits);

  /**
   * Adds {@code delta} free permits, waking waiters they let in; a negative delta removes free
   * permits, possibly leaving fewer than zero.
   *
   * @param delta the permits to add; negative to remove
   * @throws IllegalArgumentException if the free permits would leave the {@code int} range
   */
  void addPermits(int delta);

  /**
   * Returns the number of free permits now, those whose lease has ended included; a snapshot.
   *
   * @return the free permits
   */
  int availablePermits();

  /**
   * Leases a permit for {@code leaseTime}, waiting until one is free; returns its id.
   *
   * @param leaseTime how long the permit is leased
   * @param unit the unit of {@code leaseTime}
   * @return the permit's id
   * @throws IllegalArgumentException if {@code leaseTime} is under a millisecond or {@code unit} is
   *     null
   * @throws InterruptedException if interrupted before or while waiting; no permit is held then
   */
  String acquire(long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Leases a permit if one is free, without waiting, and returns its id; returns {@code null} if
   * none is free. The lease is the {@code Warden}'s {@code watchdogTimeout} (30 s by default) and
   * is not renewed: extend it with {@link #updateLeaseTime}.
   *
   * @return the permit's id, or {@code null} if none is free
   */
  String tryAcquire();

  /**
   * Leases a permit for {@code leaseTime}, waiting at most {@code waitTime}; returns its id, or
   * {@code null} if none became free in time.
   *
   * @param waitTime how long to wait at most
   * @param leaseTime how long the permit is leased
   * @param unit the unit of {@code waitTime} and {@code leaseTime}
   * @return the permit's id, or {@code null} if the wait ran out
   * @throws IllegalArgumentException if {@code waitTime} is negative, {@code leaseTime} under a
   *     millisecond, or {@code unit} null
   * @throws InterruptedException if interrupted before or while waiting; no permit is held then
   */
  String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

  /**
   * Gives back the permit of that id and wakes a waiter; returns {@code false} if the id is not a
   * leased permit (never issued, released already, or its lease ended).
   *
   * @param permitId the id {@code acquire} or {@code tryAcquire} returned
   * @return {@code true} if the permit was released
   * @throws IllegalArgumentException if {@code permitId} is null or blank
   */
  boolean tryRelease(String permitId);

  /**
   * Gives back the permit of that id and wakes a waiter.
   *
   * @param permitId the id {@code acquire} or {@code tryAcquire} returned
   * @throws IllegalArgumentException if {@code permitId} is null or blank, or not a leased permit
   *     (never issued, released already, or its lease ended)
   */
  void release(String permitId);

  /**
   * Makes the lease of a live permit end {@code leaseTime} from now (shorter or longer than it
   * was); returns {@code false} if the id is not a live permit (unknown, released, or its lease
   * ended: it cannot be revived).
   *
   * @param permitId the id {@code acquire} or {@code tryAcquire} returned
   * @param leaseTime the new lease, from now
   * @param unit the unit of {@code leaseTime}
   * @return {@code true} if the lease was changed
   * @throws IllegalArgumentException if {@code permitId} is null or blank, {@code leaseTime} under
   *     a millisecond, or {@code unit} null
   */
  boolean updateLeaseTime(String permitId, long leaseTime, TimeUnit unit);
}
