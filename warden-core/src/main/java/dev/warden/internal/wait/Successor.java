package dev.warden.internal.wait;

/**
 * A parked acquisition that a release by another owner of this client may complete directly (a
 * hand-off), once {@link Topic#claim} took it off its topic: no attempt of its own is in flight
 * then, and its wake-up is the claimer's to give.
 */
public interface Successor {
  /** What the release script needs to grant it the object. */
  HandOffTerms terms();

  /** Its place in the object's queue now ({@link Long#MAX_VALUE} when it has none). */
  long ticket();

  /**
   * How it waits together with this client's other parked acquisitions of the same object (one
   * line, see {@link Topic}), or null when it waits alone with its own re-check timer.
   */
  default SharedWait sharing() {
    return null;
  }

  /** Completes the acquisition with the object, which the release gave it with this token. */
  void grant(long token, long sentAtNanos);

  /** It was not handed the object: it tries again for itself. */
  void wake();

  /**
   * The release that was to hand it the object failed in a way that leaves open whether it did (a
   * timeout, a dropped connection). If the acquisition goes on, it tries again for itself (and
   * finds the object it was given, if so); if it is over, or ends without a grant, what the release
   * may have given it goes back through its claim's {@link Claim#giveBackInDoubt()}.
   */
  void handOffInDoubt();

  /**
   * It was not handed the object because another waiter comes first: it parks again on {@code
   * topic} unless a wake-up it would have had came since {@code claimedAtGeneration} (then it tries
   * at once).
   */
  void reparkOrWake(Topic topic, long claimedAtGeneration);
}
