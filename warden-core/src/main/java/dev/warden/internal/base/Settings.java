package dev.warden.internal.base;

import dev.warden.Replication;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Every timeout, interval and lifetime Warden works with, in one value: the three a user sets
 * ({@code Warden.builder()}) and the fixed ones, with the figures derived from them. Immutable. The
 * fixed figures of one topology live with it ({@code redis.sentinel.SentinelFollower}, {@code
 * redis.cluster.ClusterDeployment}).
 */
public final class Settings {
  /**
   * How long a lock's fence lives from its creation (prelude.lua's mint_token): after it, tokens
   * restart from the server clock, still above every earlier one.
   */
  public static final long FENCE_RETENTION_MILLIS = TimeUnit.HOURS.toMillis(1);

  /** How long a subscription outlives its last waiter. */
  public static final long SUBSCRIPTION_LINGER_MILLIS = 1_000;

  /** A queued lock waiter (fair lock, writer, condition) asks again at least this often. */
  public static final long HEARTBEAT_MILLIS = 1_000;

  /** How long a queued lock waiter may stay silent before it counts as dead. */
  public static final long HEARTBEAT_TIMEOUT_MILLIS = 3_000;

  /** How many hand-offs between one client's threads in a row before a real release. */
  public static final int HAND_OFFS_IN_A_ROW = 8;

  /** How long a row of hand-offs between one client's threads may last before a real release. */
  public static final long HAND_OFF_ROW_MILLIS = 50;

  /**
   * How long a last release keeps a lock for other clients when one of theirs waited, so that the
   * releasing client's own threads (which need no message to try again) do not take it straight
   * back: long enough for another client's waiter to hear the release message and try.
   */
  public static final long CROSS_CLIENT_RESERVATION_MILLIS = 25;

  /**
   * How long a last release keeps a lock for the client it nominates (the first of the clients
   * whose waiters were refused by a holder of another client) before anybody may take it: long
   * enough for that client to hear the release message and try, short enough that a nominee whose
   * waiter gave up costs the others little.
   */
  public static final long CROSS_CLIENT_TURN_MILLIS = 50;

  /**
   * How long the hash of a lock nominated for a client lives, with the list of waiting clients in
   * it: longer than a turn and than the default recheck, so that after a turn nobody took, the next
   * acquirer finds the list.
   */
  public static final long NOMINATED_LOCK_MILLIS = 1_000;

  /**
   * How long a direct grant (a last release giving the reentrant lock to another client's
   * registered waiter, lock-release.lua) holds the lock for that waiter before the waiter confirms
   * it: its client, on the grant message, sends the hold's first renewal at once, which sets its
   * full lease. A grant to a process that died after the message therefore keeps the others out for
   * at most this long.
   */
  public static final long GRANT_LEASE_MILLIS = 3_000;

  /** Holds renewed by one script call: bounds the time Redis spends in one script. */
  public static final int RENEWAL_BATCH = 256;

  /**
   * The first and the longest pause between reconnection attempts (doubling in between): once Redis
   * is back, waiters and the lease keeper notice within a second, not Lettuce's 30 s.
   */
  public static final long RECONNECT_DELAY_FIRST_MILLIS = 10;

  /** See {@link #RECONNECT_DELAY_FIRST_MILLIS}. */
  public static final long RECONNECT_DELAY_MAX_MILLIS = 1_000;

  /**
   * The first and the longest pause before a blocking call (a release, a count-down) is sent again
   * after a transient failure, doubling in between, within the command timeout.
   */
  public static final long CALL_RETRY_FIRST_MILLIS = 10;

  /** See {@link #CALL_RETRY_FIRST_MILLIS}. */
  public static final long CALL_RETRY_MAX_MILLIS = 200;

  /** How long a semaphore queue entry lives unless its waiter refreshes it. */
  public static final long SEMAPHORE_ENTRY_LEASE_MILLIS = 2_000;

  /** The longest a queued semaphore waiter waits between attempts (each refreshes its entry). */
  public static final long SEMAPHORE_HEARTBEAT_MILLIS = 500;

  /** How long a waiter's mark keeps the hash of a leased semaphore whose permits were never set. */
  public static final long UNSET_MARK_MILLIS = 60_000;

  private final long watchdogLeaseMillis;
  private final long commandTimeoutNanos;
  private final long recheckNanos;
  private final String operationMarkerArgument;
  private final Replication replication; // null under Replication.none(): the hot path tests it
  private final long maxHoldNanos; // 0: renewed for as long as held
  private final String syncIdleArgument; // "0": semaphores and latches never expire

  /**
   * @param watchdogTimeout the lease of holds renewed by the lease keeper
   * @param commandTimeout how long one Redis call, retries included, may take
   * @param recheckInterval the longest a parked acquisition waits before it asks again
   */
  public Settings(Duration watchdogTimeout, Duration commandTimeout, Duration recheckInterval) {
    this(watchdogTimeout, commandTimeout, recheckInterval, Replication.none());
  }

  /**
   * @param replication when an acquisition counts as done
   */
  public Settings(
      Duration watchdogTimeout,
      Duration commandTimeout,
      Duration recheckInterval,
      Replication replication) {
    this(watchdogTimeout, commandTimeout, recheckInterval, replication, null);
  }

  /**
   * @param maxHoldTime how long the lease keeper renews a hold at most, or null for as long as it
   *     is held
   */
  public Settings(
      Duration watchdogTimeout,
      Duration commandTimeout,
      Duration recheckInterval,
      Replication replication,
      Duration maxHoldTime) {
    this(watchdogTimeout, commandTimeout, recheckInterval, replication, maxHoldTime, null);
  }

  /**
   * @param syncIdleExpiry how long a semaphore or latch lives after its last operation, or null for
   *     ever
   */
  public Settings(
      Duration watchdogTimeout,
      Duration commandTimeout,
      Duration recheckInterval,
      Replication replication,
      Duration maxHoldTime,
      Duration syncIdleExpiry) {
    if (replication.timeout().compareTo(commandTimeout) >= 0) {
      throw new IllegalArgumentException(
          "the replication timeout must be below the command timeout ("
              + commandTimeout
              + "): "
              + replication);
    }
    this.replication = replication.isNone() ? null : replication;
    this.watchdogLeaseMillis = watchdogTimeout.toMillis();
    this.commandTimeoutNanos = commandTimeout.toNanos();
    this.recheckNanos = recheckInterval.toNanos();
    this.operationMarkerArgument = Long.toString(operationMarkerMillis());
    this.maxHoldNanos = maxHoldTime == null ? 0 : maxHoldTime.toNanos();
    this.syncIdleArgument = syncIdleExpiry == null ? "0" : Long.toString(syncIdleExpiry.toMillis());
  }

  /**
   * How long a semaphore or latch lives after its last operation, in ms, as a script argument; "0"
   * when they never expire.
   */
  public String syncIdleArgument() {
    return syncIdleArgument;
  }

  /**
   * How long the lease keeper renews a hold at most, from when it was taken, in ns; 0 when it
   * renews it for as long as it is held.
   */
  public long maxHoldNanos() {
    return maxHoldNanos;
  }

  /** The replication policy, or null under {@link Replication#none()}. */
  public Replication replication() {
    return replication;
  }

  /** The lease of a hold the lease keeper renews, in ms. */
  public long watchdogLeaseMillis() {
    return watchdogLeaseMillis;
  }

  /** How often the lease keeper renews: every third of the watchdog lease. */
  public long renewalPeriodNanos() {
    return TimeUnit.MILLISECONDS.toNanos(Math.max(1, watchdogLeaseMillis / 3));
  }

  /** How long a Redis call, with its retries after transient failures, may take. */
  public long commandTimeoutNanos() {
    return commandTimeoutNanos;
  }

  /** The longest a parked acquisition waits before it asks Redis again. */
  public long recheckNanos() {
    return recheckNanos;
  }

  /** How long past its deadline a timed acquisition may take to report when Redis is silent. */
  public long verdictMarginNanos() {
    return Math.min(commandTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(500));
  }

  /** The pause before an acquisition tries again after a transient failure. */
  public long retryBackoffNanos() {
    return Math.min(TimeUnit.MILLISECONDS.toNanos(50), commandTimeoutNanos / 10);
  }

  /**
   * How long an operation marker lives: longer than an operation is retried (the command timeout,
   * counted from its first failure, plus one last call of up to a command timeout), with room to
   * spare.
   */
  public long operationMarkerMillis() {
    return 2 * TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos) + 5_000;
  }

  /** {@link #operationMarkerMillis()} as a script argument. */
  public String operationMarkerArgument() {
    return operationMarkerArgument;
  }

  /** {@link #SUBSCRIPTION_LINGER_MILLIS} in nanoseconds. */
  public long subscriptionLingerNanos() {
    return TimeUnit.MILLISECONDS.toNanos(SUBSCRIPTION_LINGER_MILLIS);
  }

  @Override
  public String toString() {
    return "Settings[watchdogLease="
        + watchdogLeaseMillis
        + "ms, commandTimeout="
        + TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos)
        + "ms, recheck="
        + TimeUnit.NANOSECONDS.toMillis(recheckNanos)
        + "ms]";
  }
}
