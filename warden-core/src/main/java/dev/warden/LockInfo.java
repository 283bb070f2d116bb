package dev.warden;

import java.util.Map;

/**
 * A snapshot of one lock as Redis has it, read in one atomic step; for diagnostics ({@code warden
 * inspect}) and dashboards, not for deciding who may enter a critical section.
 *
 * @param name the lock name
 * @param key the Redis key of the lock hash
 * @param holders owner id to hold count; empty when the lock is free
 * @param remainTimeToLive ms until the lock expires; -2 when not locked, -1 without expiry
 * @param currentToken fencing token of the current hold; -1 when the lock is free
 * @param lastToken last fencing token issued for this name; -1 when none is remembered
 * @param waitingClients number of Warden instances subscribed to this lock's release channel, that
 *     is, with at least one acquirer waiting
 * @since 0.2
 */
public record LockInfo(
    String name,
    String key,
    Map<String, Integer> holders,
    long remainTimeToLive,
    long currentToken,
    long lastToken,
    long waitingClients) {

  /**
   * Makes a snapshot; {@code holders} is copied.
   *
   * @param name the lock name
   * @param key the Redis key of the lock hash
   * @param holders owner id to hold count; empty when the lock is free
   * @param remainTimeToLive ms until the lock expires; -2 when not locked, -1 without expiry
   * @param currentToken fencing token of the current hold; -1 when the lock is free
   * @param lastToken last fencing token issued for this name; -1 when none is remembered
   * @param waitingClients number of Warden instances waiting for this lock
   */
  public LockInfo {
    holders = Map.copyOf(holders);
  }

  /**
   * Returns whether any owner holds the lock.
   *
   * @return {@code true} if {@code holders} is not empty
   */
  public boolean isLocked() {
    return !holders.isEmpty();
  }
}
