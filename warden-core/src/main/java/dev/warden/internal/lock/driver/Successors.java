package dev.warden.internal.lock.driver;

import dev.warden.internal.wait.HandOffTerms;

/**
 * This client's parked waiters for one lock, as its release sees them: the other side of a
 * hand-off, implemented by the lock layer. A driver that hands its lock over asks for a candidate,
 * runs its release script with the candidate's terms, and then tells the candidate how it went.
 */
public interface Successors {
  /**
   * Takes off its topic the longest-waiting parked waiter of this client that can be handed the
   * lock, unless a real release is due (a waiter a hand-off cannot reach was refused, and enough
   * hand-offs were made in a row); null when there is none or a real release is due.
   */
  Candidate next();

  /**
   * Whether the last {@link #next()} returned null because a real release is due while a waiter no
   * hand-off can reach waits (rather than because no waiter of this client was parked): the release
   * then keeps the lock from this client's threads for a moment, so that it changes client. Asked
   * once, right after {@code next()}, by the releasing thread.
   */
  boolean yielding();

  /** Takes off its topic this client's parked waiter with the earliest ticket; null if none. */
  Candidate earliest();

  /** A parked waiter taken off its topic for a hand-off: its wake-up is now the release's. */
  interface Candidate {
    /** What the release script needs to give it the lock. */
    HandOffTerms terms();

    /**
     * The release gave it the lock with this token: it holds it now. {@code othersWait}: Redis says
     * that a waiter no hand-off can reach was refused meanwhile.
     */
    void handedOver(long token, boolean othersWait);

    /** The release did not give it the lock: it tries at once. */
    void declined();

    /**
     * The release failed in a way that leaves open whether it gave it the lock (a timeout, a
     * dropped connection): it tries at once, and finds the lock it was given if so; if its
     * acquisition is over, the lock it may have been given goes back (by its acquisition id, so
     * that a later acquisition of the same owner keeps what it took).
     */
    void inDoubt();

    /** The release did not give it the lock because another waiter is first: it waits on. */
    void notFirst();
  }
}
