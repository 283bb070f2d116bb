package dev.warden.internal.lock.driver;

import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.wait.SharedWait;
import dev.warden.internal.wait.WakeMessage;
import java.util.concurrent.CompletableFuture;

/**
 * What differs between lock types (reentrant, fair, read, write): their Redis data and scripts, and
 * whether and how a release hands the lock straight to a waiter of the same client. The lock layer
 * does the rest (the API, local holds, handles, waiting), in the manner of Curator's mutex,
 * internals and driver. A driver sends its own calls: it is given what it needs when it is made,
 * and is never asked what type it is.
 */
public interface LockDriver {
  /**
   * The reply of one acquisition attempt.
   *
   * @param acquired whether the owner holds the lock now
   * @param token the hold's fencing token, when acquired
   * @param holdCount the owner's hold count in Redis, when acquired
   * @param retryAfterMillis when refused: how long the holder may still hold (bounds the wait)
   */
  record Attempt(boolean acquired, long token, int holdCount, long retryAfterMillis) {
    /** An attempt that took the lock. */
    public static Attempt acquired(long token, int holdCount) {
      return new Attempt(true, token, holdCount, 0);
    }

    /** An attempt refused while another owner holds the lock. */
    public static Attempt busy(long retryAfterMillis) {
      return new Attempt(false, -1, 0, retryAfterMillis);
    }
  }

  /**
   * The reply of one release.
   *
   * @param held whether the owner held the lock
   * @param remaining the owner's holds afterwards
   * @param wake whom of this client's waiters to wake now
   */
  record Release(boolean held, int remaining, WakeMessage wake) {
    /** The last hold went straight to a waiter of this client: nobody else is woken. */
    public static final Release HANDED_OVER = new Release(true, 0, WakeMessage.NONE);
  }

  /**
   * What every driver is made of: the lock's names, how the lease keeper renews its holds, and its
   * one-read queries.
   *
   * @param keys the lock's name, label and keys
   * @param renewal how the lease keeper renews holds of this lock
   * @param queries the lock's one-read queries
   * @param subject what events and activity entries name it by: its type and name
   */
  record Parts(LockKeys keys, Renewal renewal, LockQueries queries, Subject subject) {}

  /** This driver's parts. */
  Parts parts();

  /** The lock's name, label and keys. */
  default LockKeys keys() {
    return parts().keys();
  }

  /** How the lease keeper renews holds of this lock. */
  default Renewal renewal() {
    return parts().renewal();
  }

  /** The lock's one-read queries. */
  default LockQueries queries() {
    return parts().queries();
  }

  /** The lock's type and name, for events and activity entries. */
  default Subject subject() {
    return parts().subject();
  }

  /** Names the lock in messages, e.g. {@code fair lock 'orders'}. */
  default String describe() {
    return keys().describe();
  }

  /** The lock's name as the user gave it. */
  default String name() {
    return keys().name();
  }

  /** The key that identifies holds: with the owner, it names a local hold. */
  default String holdKey() {
    return keys().lock();
  }

  /** The channel releases are published on. */
  default String channel() {
    return keys().channel();
  }

  /**
   * Tries once. Where the owner holds the lock in Redis, its count becomes {@code heldBefore + 1},
   * whatever Redis counted: the client's count is the truth for the client; a hold the client does
   * not know of ({@code heldBefore} 0) becomes this acquisition's, with a new token.
   *
   * @param acquisitionId unique per acquisition, recorded with the count it sets: a retry of the
   *     same acquisition that finds its first try applied keeps the count (a first acquisition's
   *     retry gets a new token, as its client never saw the first), and a give-back names it
   *     ({@link #giveBack})
   * @param heldBefore the owner's hold count as the client knows it
   * @param othersWait other local acquirers wait: the release must publish
   * @param willWait the caller waits if refused (a fair lock queues it; {@code tryLock()} not)
   */
  CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait);

  /**
   * Tries once, as {@link #acquire(String, String, int, long, boolean, boolean)}, with what the
   * acquisition learnt from its refusals so far ({@code hint}), which its reply adds to: where the
   * lock type uses it (the reentrant lock), an attempt after a refusal costs Redis fewer commands;
   * it never changes the outcome. {@code registers}: a refusal by a holder of another client
   * registers the owner as its client's waiter for a direct grant (the reentrant lock's
   * lock-acquire.lua, ARGV[11]; the fair lock's queue entry records its lease, fair-acquire.lua's
   * ARGV[10]). Lock types without them ignore both (the default).
   */
  default CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait,
      RefusalHint hint,
      boolean registers) {
    return acquire(owner, acquisitionId, heldBefore, leaseMillis, othersWait, willWait);
  }

  /**
   * Whether a last release may grant this lock directly to another client's registered waiter (the
   * reentrant lock; the fair lock, to the head of its queue): only then do acquisitions register
   * ({@link #acquire(String, String, int, long, boolean, boolean, RefusalHint, boolean)}).
   */
  default boolean grantsDirectly() {
    return false;
  }

  /**
   * Gives back a direct grant to acquisition {@code acquisitionId} of the owner under {@code token}
   * (one its client did not deliver to that acquisition), if the owner's hold in Redis is still
   * exactly that grant: its acquisition and its token. Changes nothing otherwise: the acquisition
   * took it by a replay of its own (a new token), or another acquisition of the owner took it over.
   * Lock types without direct grants have nothing to give back (the default).
   */
  default CompletableFuture<Release> giveBackGrant(String owner, String acquisitionId, long token) {
    return CompletableFuture.completedFuture(new Release(false, 0, WakeMessage.NONE));
  }

  /**
   * Gives back one hold (see {@link Release}): the owner keeps {@code heldBefore - 1}, whatever
   * Redis counted.
   *
   * @param heldBefore the owner's hold count as the client knows it
   * @param releaseId the same for every retry of this release: the release that ends the hold
   *     records it, so that a retry that finds the hold gone counts as released only when it was
   *     this release that ended it (and not a lease that ran out before)
   */
  default CompletableFuture<Release> release(String owner, int heldBefore, String releaseId) {
    return lower(owner, heldBefore, "", releaseId);
  }

  /**
   * Gives back the owner's last hold, handing the lock straight to a parked waiter of this client
   * where this lock type can ({@link Release#HANDED_OVER} then). By default a plain release. Safe
   * to call again, with the same {@code releaseId}, after a failure whose outcome is unknown.
   */
  default CompletableFuture<Release> releaseLast(
      String owner, String releaseId, Successors successors) {
    return release(owner, 1, releaseId);
  }

  /**
   * Ends the owner's hold if Redis still has it under {@code token} (the owner keeps none, and the
   * hold ends as a last release ends it, with its wake-ups): a hold this client declared lost when
   * no renewal answered before its lease deadline. Renewals sent before that deadline may still
   * reach Redis after it (their replies were lost, or they were held in the network) and keep the
   * hold for another lease, held by nobody. Changes nothing when the hold is gone, or has another
   * token: an acquisition of the owner since then took a lingering hold over under a new token.
   * Safe to send more than once.
   */
  CompletableFuture<Release> dropLost(String owner, long token);

  /**
   * Undoes acquisition {@code acquisitionId} of the owner (a grant nobody will use, an attempt or a
   * hand-off that may have run unseen), if the owner's hold in Redis is still the one it set: the
   * owner then keeps one hold less, and at most {@code keep}, and the hold ends (with the release's
   * wake-ups) when none is left. Changes nothing when a later acquisition or release of the owner
   * has set the count since, or the hold is gone: so it can never take a hold another acquisition
   * made. Safe to send more than once.
   *
   * @param keep the most holds the owner keeps: the count the acquisition started from (0 ends the
   *     hold)
   */
  default CompletableFuture<Release> giveBack(String owner, String acquisitionId, int keep) {
    return lower(owner, keep, acquisitionId, "");
  }

  /**
   * The lock type's release script, which serves both {@link #release} ({@code undo} '') and {@link
   * #giveBack} ({@code undo}: the acquisition id; {@code releaseId} '').
   */
  CompletableFuture<Release> lower(String owner, int count, String undo, String releaseId);

  /**
   * Whether a thread that finds the lock held by another owner of this client may wait without
   * asking Redis: true when that owner's release always hands the lock over or wakes this client's
   * waiters (the reentrant lock).
   */
  default boolean waitsForLocalHolder() {
    return false;
  }

  /**
   * How this client's parked first acquisitions of this lock wait together (see {@link
   * SharedWait}), or null when each waits alone: only where one's refusal stands for all of them
   * and a release by one of them hands over or wakes the next.
   */
  default SharedWait sharedWait() {
    return null;
  }

  /**
   * Whether several locks of this type in one slot can be taken by one script call of a multi-lock
   * (lock-acquire-all.lua takes reentrant locks).
   */
  default boolean joinsGroups() {
    return false;
  }

  /**
   * Removes a waiter that gave up from whatever queue its acquisition joined, leaving an entry of a
   * later acquisition of the same owner alone; a no-op for most locks.
   */
  default CompletableFuture<?> leave(String owner, String acquisitionId) {
    return CompletableFuture.completedFuture(null);
  }

  /** Forgets what the driver kept for an acquisition that is over. */
  default void forget(String acquisitionId) {}

  /** The acquisition's place in the lock's queue, or {@link Long#MAX_VALUE} when it has none. */
  default long ticket(String acquisitionId) {
    return Long.MAX_VALUE;
  }

  /** The id under which a waiter is woken alone, or null when wake-ups are not targeted. */
  default String waiterId(String owner) {
    return null;
  }

  /** Whether the lock offers conditions (the read lock does not, as in the JDK). */
  default boolean supportsConditions() {
    return true;
  }

  /** Deletes every hold whoever owns it and wakes waiters; true if there was one. */
  CompletableFuture<Boolean> forceRelease();
}
