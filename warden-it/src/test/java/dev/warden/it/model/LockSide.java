package dev.warden.it.model;

import java.util.List;
import java.util.Map;

/**
 * The client protocol of one lock type (reentrant, fair, read or write side), at the level of the
 * script calls its driver sends: the same keys and arguments, the same reading of the replies. Each
 * implementation is the one place that follows the driver of its lock type, so a new script
 * contract is followed there in one edit. What the client does with the replies (known counts,
 * adopting a grant, giving back) is {@link Clients}'s, shared by every type as {@code LockCore}
 * shares it.
 */
interface LockSide {
  /** The reply of an acquisition attempt: {@code status} 1 acquired, 0 refused, -1 read-held. */
  record Attempt(int status, long token, int count) {
    boolean acquired() {
      return status == 1;
    }
  }

  /** The reply of a release: whether the owner held it, and its count left in Redis. */
  record Release(boolean held, int remaining) {}

  /** What a release that offers the lock to a parked waiter of its client did. */
  enum HandOff {
    /** The waiter holds the lock now (its token in {@link #token}). */
    HANDED,
    /** The release ran as a plain release: the waiter was not the one to take it (fair lock). */
    RELEASED,
    /** The releasing owner held nothing; nothing happened (the caller releases as usual). */
    NOT_HELD,
    /** The releasing owner held nothing, as the release in the same call found (fair lock). */
    LOST,
    /** The releasing owner holds more than one hold in Redis: nothing happened. */
    MORE_THAN_ONE
  }

  /** A waiter a release may hand the lock to: its owner, lease and acquisition id. */
  record Terms(String owner, long lease, String acquisitionId) {}

  /** Names the object in messages, e.g. {@code lock L1}. */
  String describe();

  /** The fence key: tokens rise per fence (the read-write lock's two sides share one). */
  String fence();

  /** Every key of the object, for snapshots and the TTL check. */
  List<String> keys();

  /** Whether one owner at a time may hold it (every side but the read side). */
  default boolean exclusive() {
    return true;
  }

  /** Whether a release of the last hold can hand the lock to a parked waiter of its client. */
  default boolean handsOff() {
    return false;
  }

  Attempt acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long lease,
      boolean othersWait,
      boolean willWait);

  Release release(String owner, int heldBefore);

  /** Releases the last hold, offering the lock to {@code to}; the token is in {@link #token()}. */
  default HandOff releaseTo(String owner, Terms to) {
    throw new UnsupportedOperationException(describe() + " hands nothing off");
  }

  /** The token of the last {@link HandOff#HANDED}. */
  default long token() {
    return -1;
  }

  /** Takes a waiter that gave up out of the object's queue (a no-op for most types). */
  default void leave(String owner) {}

  /** Forgets what the driver kept for a waiter whose acquisition is over (a no-op for most). */
  default void forget(String owner) {}

  /** Renews the holds of these owners with {@code lease}; returns those not renewed (lost). */
  List<String> renew(List<String> owners, long lease);

  /** The live holds in Redis now: owner to count. */
  Map<String, Integer> holds();

  /** When the owner's hold ends in Redis (server ms), or -1 when it has no live hold. */
  long expiresAt(String owner);

  /** Ends the owner's lease now, as its expiry would (a fault). */
  void expire(String owner);
}
