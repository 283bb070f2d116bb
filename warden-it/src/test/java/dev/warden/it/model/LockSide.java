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
    LOST
  }

  /** A direct grant a release made (lock-release.lua, 'Grants'): to whom, and its token. */
  record Grant(String owner, String acquisitionId, long token) {}

  /** The direct grants made since the last call, in order (none for most types). */
  default List<Grant> takeGrants() {
    return List.of();
  }

  /** Gives back a direct grant nobody took, by its acquisition id and token (MutexClaim). */
  default Release giveBackGrant(String owner, String acquisitionId, long token) {
    throw new UnsupportedOperationException(describe() + " makes no direct grant");
  }

  /** A waiter a release may hand the lock to: its owner, lease and acquisition id. */
  record Terms(String owner, long lease, String acquisitionId) {}

  /** Names the object in messages, e.g. {@code lock L1}. */
  String describe();

  /** The fence key: tokens rise per fence (the read-write lock's two sides share one). */
  String fence();

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

  /**
   * The lock type's release script, as the driver's {@code lower}: a release ({@code undo} '', the
   * owner keeps {@code count - 1}, {@code releaseId} recorded when it ends the hold) or a give-back
   * of acquisition {@code undo} (the owner keeps at most {@code count}; {@code releaseId} '').
   */
  Release lower(String owner, int count, String undo, String releaseId);

  /** One hold given back: the owner keeps {@code heldBefore - 1}, whatever Redis counted. */
  default Release release(String owner, int heldBefore, String releaseId) {
    return lower(owner, heldBefore, "", releaseId);
  }

  /**
   * The release of a last hold that ends a full row of hand-offs while a waiter no hand-off reaches
   * was refused (the reentrant lock keeps it from this client for a moment); else a plain release.
   */
  default Release releaseYielding(String owner, String releaseId) {
    return release(owner, 1, releaseId);
  }

  /** Undoes acquisition {@code acquisitionId} if it still set the owner's count: keeps at most. */
  default Release giveBack(String owner, String acquisitionId, int keep) {
    return lower(owner, keep, acquisitionId, "");
  }

  /**
   * Releases the last hold, offering the lock to {@code to}; the token is in {@link #token()}, and
   * whether Redis says a waiter no hand-off reaches was refused in {@link #othersWaitFar()}.
   */
  default HandOff releaseTo(String owner, Terms to, String releaseId) {
    throw new UnsupportedOperationException(describe() + " hands nothing off");
  }

  /** The token of the last {@link HandOff#HANDED}. */
  default long token() {
    return -1;
  }

  /** Whether the last {@link HandOff#HANDED} found a waiter a hand-off cannot reach ('#o'). */
  default boolean othersWaitFar() {
    return false;
  }

  /**
   * The leave of acquisition {@code acquisitionId} of a waiter that gave up, made now (with what
   * the driver knows now, e.g. its ticket) and sent when the returned call runs: it takes that
   * acquisition out of the object's queue and leaves a later acquisition's entry alone (nothing to
   * send for most types).
   */
  default Runnable leave(String owner, String acquisitionId) {
    return () -> {};
  }

  /**
   * Forgets what the driver of the owner's client kept for an acquisition that is over (a no-op for
   * most). The model keeps one protocol object for every client, so what a client's driver keeps by
   * acquisition id (unique within a client only) is kept here by client and id.
   */
  default void forget(String owner, String acquisitionId) {}

  /**
   * Whether Redis still has the waiting acquisition's entry in the object's queue, or a queue entry
   * would have gone for a reason (its heartbeat ran out); true for types without a queue.
   */
  default boolean queued(String owner, String acquisitionId) {
    return true;
  }

  /**
   * Ends the owner's hold if it still has {@code token}, as a last release ends it (the driver's
   * {@code dropLost}: a hold its client declared lost by its lease deadline).
   */
  Release dropLost(String owner, long token);

  /** Renews the holds of these owners with {@code lease}; returns those not renewed (lost). */
  List<String> renew(List<String> owners, long lease);

  /** The live holds in Redis now: owner to count. */
  Map<String, Integer> holds();

  /** When the owner's hold ends in Redis (server ms), or -1 when it has no live hold. */
  long expiresAt(String owner);

  /** Ends the owner's lease now, as its expiry would (a fault). */
  void expire(String owner);
}
