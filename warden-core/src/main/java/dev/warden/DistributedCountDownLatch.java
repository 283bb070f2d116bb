package dev.warden;

import java.util.concurrent.TimeUnit;

/**
 * A count-down latch shared by every process that uses the same name, with the methods and meaning
 * of {@link java.util.concurrent.CountDownLatch}: {@code await} returns once {@code countDown} has
 * been called as many times as the count, by any threads of any processes.
 *
 * <pre>{@code
 * DistributedCountDownLatch shardsLoaded = warden.countDownLatch("nightly-load");
 * shardsLoaded.trySetCount(shards);          // by the coordinator, before the workers start
 *
 * // each worker, in its own process:
 * try {
 *   load(shard);
 * } finally {
 *   shardsLoaded.countDown();
 * }
 *
 * // whoever needs all shards:
 * if (!shardsLoaded.await(10, TimeUnit.MINUTES)) {
 *   throw new IllegalStateException("shards still loading: " + shardsLoaded.getCount());
 * }
 * }</pre>
 *
 * <p><b>Unlike {@code CountDownLatch}</b> the count is set after creation, with {@link
 * #trySetCount}, and can be set again once it has reached zero, so one name can serve round after
 * round. A latch whose count was never set (or that was deleted) is open: its count is zero and
 * {@code await} returns at once. An awaiter of one round never misses its opening because the next
 * round started first: it returns once the latch is counting a round other than the one it first
 * found.
 *
 * <p><b>Waking.</b> The count-down that reaches zero publishes one message that wakes every awaiter
 * in every process. Awaiters do not depend on it alone: each re-checks the count at the {@code
 * recheckInterval} (default 200 ms) and at once after its pub/sub connection reconnects, so a lost
 * message or a dropped connection delays an awaiter by at most that interval.
 *
 * <p><b>Cost.</b> {@code countDown}, {@code trySetCount} and {@code delete} are one script call
 * (one round trip) each, {@code getCount} one read; an awaiter costs one script call per check. A
 * count-down publishes only when somebody awaits and the count reaches zero.
 *
 * <p><b>Failures.</b> A Redis failure throws {@link WardenException} naming the latch after the
 * command timeout; changes are retried within it and a retried count-down never counts twice. The
 * count lives in Redis and is lost with Redis data (a restart without persistence, a failover to a
 * replica that had not received it): the latch is then open, and its awaiters return.
 *
 * <p>Instances are thread-safe and cheap; all instances of one name share one state.
 *
 * @since 0.2
 */
public interface DistributedCountDownLatch {
  /**
   * Sets the count if the latch is not counting: never set, deleted, or down to zero; returns
   * {@code false}, changing nothing, while it is counting. A count of zero sets nothing and returns
   * whether the latch is open.
   *
   * @param count the count to set
   * @return {@code true} if the count was set (or, for zero, the latch is open)
   * @throws IllegalArgumentException if {@code count} is negative
   */
  boolean trySetCount(long count);

  /**
   * Lowers the count by one; when it reaches zero, wakes every awaiter. Does nothing when the count
   * is zero already.
   */
  void countDown();

  /**
   * Returns the count now: zero when the latch is open (never set, counted down, deleted).
   *
   * @return the count, zero when open
   */
  long getCount();

  /**
   * Waits until the count is zero; returns at once if it is.
   *
   * @throws InterruptedException if interrupted before or while waiting
   */
  void await() throws InterruptedException;

  /**
   * Waits at most {@code timeout} until the count is zero; returns {@code true} if it reached zero
   * and {@code false} if the time ran out first. A timeout of zero or less does not wait.
   *
   * @param timeout how long to wait at most
   * @param unit the unit of {@code timeout}
   * @return {@code true} if the count reached zero, {@code false} if the time ran out
   * @throws IllegalArgumentException if {@code unit} is null
   * @throws InterruptedException if interrupted before or while waiting
   */
  boolean await(long timeout, TimeUnit unit) throws InterruptedException;

  /**
   * Deletes the latch, whatever its count, and wakes its awaiters, which find it open and return;
   * returns whether it existed (was counting).
   *
   * @return {@code true} if the latch existed
   */
  boolean delete();
}
