package dev.warden;

import java.time.Duration;
import java.util.Objects;

/**
 * When an acquisition counts as done, given that Redis replicates asynchronously and a failover can
 * lose a lock its master acknowledged (set with {@link Warden.Builder#replication}).
 *
 * <ul>
 *   <li>{@link #none()}, the default: as soon as the master has it. No extra command.
 *   <li>{@link #awaitReplicas(int, Duration)}: then {@code WAIT} for that many replicas, at most
 *       {@code timeout}, and report how many acknowledged ({@link
 *       LockHandle#acknowledgedReplicas()}, {@link WardenStats#replicationShortfalls()}); never
 *       undo.
 *   <li>{@link #requireReplicas(int, Duration)}: when fewer acknowledged, give the hold back and
 *       try again within the caller's wait; then fail with {@link ReplicationException}.
 * </ul>
 *
 * <p>{@code WAIT} runs on a connection of its own to the lock's master (it blocks its connection),
 * after a marker write there, so that other calls are never queued behind it. A timed acquisition
 * ({@code tryLock(wait, ...)}, {@code tryAcquire}) still returns or throws within its wait plus 500
 * ms: {@code WAIT} is cut short to end by then (no answer by then counts as no acknowledgement),
 * and a hold given back is released without waiting for the reply. Acknowledgement lowers the odds
 * of losing a lock in a failover; it cannot rule it out (a replica that acknowledged need not be
 * the one promoted). Fencing tokens checked by the resource remain the protection. Applies to the
 * acquisitions of reentrant, fair, read and write locks (blocking calls, handles taken with {@code
 * acquire}/{@code tryAcquire}, and multi-lock parts taken one by one); not to {@code acquireAsync},
 * a multi-lock's parts taken together in one script, renewals, releases or the synchronizers.
 *
 * <p>Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class Replication {
  private static final Replication NONE = new Replication(0, Duration.ZERO, false);

  private final int replicas;
  private final Duration timeout;
  private final boolean required;

  private Replication(int replicas, Duration timeout, boolean required) {
    this.replicas = replicas;
    this.timeout = timeout;
    this.required = required;
  }

  /**
   * Returns the policy that counts an acquisition as done when the master has it.
   *
   * @return the default policy
   */
  public static Replication none() {
    return NONE;
  }

  /**
   * Returns the policy that waits up to {@code timeout} for {@code replicas} replicas to
   * acknowledge each acquisition and reports how many did, keeping the hold either way.
   *
   * @param replicas how many replicas to wait for; positive
   * @param timeout how long to wait; positive, in whole milliseconds, below the command timeout
   * @return the policy
   * @throws IllegalArgumentException if {@code replicas} or {@code timeout} is not positive
   */
  public static Replication awaitReplicas(int replicas, Duration timeout) {
    return new Replication(positive(replicas), positive(timeout), false);
  }

  /**
   * Returns the policy that waits up to {@code timeout} for {@code replicas} replicas to
   * acknowledge each acquisition, and otherwise gives the hold back and tries again within the
   * caller's wait, then throws {@link ReplicationException}.
   *
   * @param replicas how many replicas must acknowledge; positive
   * @param timeout how long to wait each time; positive, in whole milliseconds, below the command
   *     timeout
   * @return the policy
   * @throws IllegalArgumentException if {@code replicas} or {@code timeout} is not positive
   */
  public static Replication requireReplicas(int replicas, Duration timeout) {
    return new Replication(positive(replicas), positive(timeout), true);
  }

  private static int positive(int replicas) {
    if (replicas <= 0) {
      throw new IllegalArgumentException("replicas must be positive: " + replicas);
    }
    return replicas;
  }

  private static Duration positive(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() == 0) {
      throw new IllegalArgumentException("timeout must be at least 1 ms: " + timeout);
    }
    return timeout;
  }

  /**
   * Returns how many replicas must acknowledge; 0 under {@link #none()}.
   *
   * @return the number of replicas
   */
  public int replicas() {
    return replicas;
  }

  /**
   * Returns how long one {@code WAIT} may take; zero under {@link #none()}.
   *
   * @return the timeout
   */
  public Duration timeout() {
    return timeout;
  }

  /**
   * Returns whether a shortfall undoes the acquisition ({@link #requireReplicas}).
   *
   * @return {@code true} under {@code requireReplicas}
   */
  public boolean required() {
    return required;
  }

  /**
   * Returns whether this is {@link #none()}.
   *
   * @return {@code true} when acquisitions do not wait for replicas
   */
  public boolean isNone() {
    return replicas == 0;
  }

  @Override
  public String toString() {
    return isNone()
        ? "Replication.none()"
        : (required ? "Replication.requireReplicas(" : "Replication.awaitReplicas(")
            + replicas
            + ", "
            + timeout
            + ")";
  }
}
