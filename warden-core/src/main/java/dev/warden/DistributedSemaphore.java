package dev.warden;

import java.util.concurrent.TimeUnit;

/**
 * A counting semaphore shared by every process that uses the same name, with the methods and
 * meaning of {@link java.util.concurrent.Semaphore}: permits are taken with {@code acquire} and
 * given back with {@code release}, by any thread of any process (permits have no owner).
 *
 * <pre>{@code
 * DistributedSemaphore slots = warden.semaphore("encoder-slots");
 * slots.trySetPermits(4);            // only the first caller ever sets it
 * slots.acquire();
 * try {
 *   encode(video);
 * } finally {
 *   slots.release();
 * }
 * }</pre>
 *
 * <p><b>Unset permits.</b> A semaphore has no permits until {@link #trySetPermits} sets them (or a
 * {@code release} or {@link #addPermits} adds some): until then it behaves as a semaphore with zero
 * permits, so acquirers wait, and they are woken when permits are set.
 *
 * <p><b>Fairness.</b> An acquirer that has to wait joins a queue in Redis, in arrival order, and
 * the first in the queue has its permits reserved: nobody else, waiting or not, can take the
 * permits it needs (not even {@link #tryAcquire()}, unlike {@code Semaphore}'s barging). So a
 * request for several permits is served once enough are released, however many single-permit
 * acquirers keep coming. Behind the first waiter the order is not strict: a later request may take
 * permits beyond those the first needs. As with a fair {@code Semaphore}, a request for more
 * permits than will ever be free holds everyone else back until it gives up.
 *
 * <p><b>Cost.</b> Every call is one round trip: one script call for changes (an uncontended acquire
 * and a release cost one call each, and publish nothing when nobody waits), a plain read for {@link
 * #availablePermits()}. Waiters sleep until a release wakes them (Redis pub/sub), re-checking at
 * the {@code recheckInterval} and at least every half second.
 *
 * <p><b>Failures.</b> A Redis failure throws {@link WardenException} naming the semaphore after the
 * command timeout; calls are retried within it and a retried call never counts twice. Permits have
 * no lease: a process that dies holding permits never gives them back (use {@link LeasedSemaphore}
 * for that), while a process that dies waiting holds up the queue for about two seconds. The count
 * lives in Redis and is lost with Redis data (a restart without persistence, a failover to a
 * replica that had not received the last changes): after that the semaphore is unset.
 *
 * <p>Instances are thread-safe and cheap; all instances of one name share one state.
 *
 * @since 0.2
 */
public interface DistributedSemaphore {
  /**
   * Sets the number of free permits if they were never set; returns {@code false}, changing
   * nothing, if they were (even if all permits are taken now).
   *
   * @param permits the number of free permits to start with
   * @return {@code true} if this call set them
   * @throws IllegalArgumentException if {@code permits} is negative
   */
  boolean trySetPermits(int permits);

  /**
   * Adds {@code delta} permits to the free ones, waking waiters they let in; a negative delta
   * removes permits, possibly leaving fewer than zero free (as {@code Semaphore.reducePermits}).
   *
   * @param delta the permits to add; negative to remove
   * @throws IllegalArgumentException if the free permits would leave the {@code int} range
   */
  void addPermits(int delta);

  /**
   * Returns the number of free permits now (zero if never set); a snapshot, one read.
   *
   * @return the free permits
   */
  int availablePermits();

  /**
   * Takes all free permits and returns how many there were (zero or fewer: sets them to zero).
   *
   * @return the permits taken, or the (zero or negative) count that was reset to zero
   */
  int drainPermits();

  /**
   * Takes one permit, waiting until one is free.
   *
   * @throws InterruptedException if interrupted while waiting; no permit is taken then
   */
  void acquire() throws InterruptedException;

  /**
   * Takes {@code permits} permits at once, waiting until that many are free; queued waiters keep
   * their reservation while it waits (see Fairness above).
   *
   * @param permits the number of permits to take
   * @throws IllegalArgumentException if {@code permits} is negative
   * @throws InterruptedException if interrupted while waiting; no permit is taken then
   */
  void acquire(int permits) throws InterruptedException;

  /**
   * Takes one permit if one is free and not reserved for a waiter; never waits.
   *
   * @return {@code true} if a permit was taken
   */
  boolean tryAcquire();

  /**
   * Takes {@code permits} permits if that many are free and not reserved for a waiter; never waits.
   *
   * @param permits the number of permits to take
   * @return {@code true} if the permits were taken
   * @throws IllegalArgumentException if {@code permits} is negative
   */
  boolean tryAcquire(int permits);

  /**
   * Takes one permit, waiting at most {@code timeout}; returns {@code false} if none became free in
   * time. A timeout of zero or less does not wait.
   *
   * @param timeout how long to wait at most
   * @param unit the unit of {@code timeout}
   * @return {@code true} if a permit was taken, {@code false} if the time ran out
   * @throws InterruptedException if interrupted while waiting; no permit is taken then
   */
  boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException;

  /**
   * Takes {@code permits} permits at once, waiting at most {@code timeout}; returns {@code false},
   * having taken none, if they did not become free in time.
   *
   * @param permits the number of permits to take
   * @param timeout how long to wait at most
   * @param unit the unit of {@code timeout}
   * @return {@code true} if the permits were taken, {@code false} if the time ran out
   * @throws IllegalArgumentException if {@code permits} is negative or {@code unit} is null
   * @throws InterruptedException if interrupted while waiting; no permit is taken then
   */
  boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException;

  /** Gives back one permit, waking a waiter it lets in; any thread may release. */
  void release();

  /**
   * Gives back {@code permits} permits, waking the waiters they let in. As with {@code Semaphore},
   * a release need not match an acquire: it may raise the permits above their initial number.
   *
   * @param permits the number of permits to give back
   * @throws IllegalArgumentException if {@code permits} is negative, or the free permits would
   *     leave the {@code int} range
   */
  void release(int permits);
}
