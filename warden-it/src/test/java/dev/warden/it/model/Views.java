package dev.warden.it.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the clients know of one lock side, as the real clients keep it: each owner's hold (its
 * count, token, and the count its user took, which only differ after a bug), the acquisitions
 * parked on it, and what the faults explain: holds a fault touched (disturbed: the client may not
 * know yet) and holds a rewind brought back that no client knows (revived, with when they end).
 */
final class Views {
  /** One owner's hold, as its client knows it. */
  static final class Hold {
    int count;
    long token;
    int user;
    boolean disturbed;

    /** The acquisition that set its count last, or null once a release changed it. */
    String acquisition;

    /** The id of a release that failed in doubt (the next release of it sends it again). */
    String releaseId;

    /** How many faults touched the hold so far. */
    int faults;

    /** For the release under way: the {@link #faults} when a run of it ended the hold, or -1. */
    int endedAt = -1;

    /** Whether the lease keeper renews it (it stops for a last hold whose release is in doubt). */
    boolean renewing = true;

    /** When the fault that disturbed it left its hold in Redis to end (server ms), -1 if gone. */
    long faultEnds = -1;

    Hold(int count, long token) {
      this.count = count;
      this.token = token;
      this.user = count;
    }

    @Override
    public String toString() {
      return "count "
          + count
          + " (user "
          + user
          + "), token "
          + token
          + (disturbed ? ", disturbed" : "")
          + (releaseId != null ? ", release " + releaseId + " in doubt" : "");
    }
  }

  /** An acquisition waiting for its next attempt: its id and the count known before it. */
  static final class Parked {
    final String acquisitionId;
    final int heldBefore;

    /** The owner's hold when the acquisition began, as LockCore captures it (null for none). */
    Hold before;

    /** Whether a run of it may have taken something its client never heard of (not settled). */
    boolean inDoubt;

    /**
     * Whether its ending sends a give-back (GiveBacks: an attempt, or a hand-off to it, failed in a
     * way that leaves open whether it ran).
     */
    boolean giveBackDue;

    /**
     * The token of a direct grant that came while an attempt of it was in flight (Topic's
     * MissedGrant), given back by id and token when it ends; 0 for none.
     */
    long missedGrant;

    /** Whether a rewind may have taken its entry in the object's queue (until its next reply). */
    boolean rewound;

    /**
     * Whether a direct grant took it out of the object's queue (fair-release's 'Grants') and its
     * message was lost (until its next reply): if the grant ends before its next attempt (the grant
     * lease ran out: a stall longer than that, or here a fault), that attempt rejoins the queue at
     * its ticket, and a waiter that asked in between may have taken the lock first.
     */
    boolean grantUnheard;

    /** For a condition's reacquisition: the holds still to take after this one, and the user's. */
    int reacquireAfter;

    int restoreUser;

    Parked(String acquisitionId, int heldBefore) {
      this.acquisitionId = acquisitionId;
      this.heldBefore = heldBefore;
    }
  }

  /**
   * The give-back and leave of an acquisition that gave up, sent but not yet arrived; {@code
   * inDoubt}: an attempt of it may have taken what its give-back undoes.
   */
  record Late(Runnable calls, boolean inDoubt) {}

  final LockSide side;
  final Map<String, Hold> holds = new LinkedHashMap<>();
  final Map<String, Parked> parked = new LinkedHashMap<>();
  final Map<String, Long> revived = new HashMap<>();
  final Map<String, Late> late = new LinkedHashMap<>();

  Views(LockSide side) {
    this.side = side;
  }

  Hold hold(String owner) {
    return holds.get(owner);
  }

  int known(String owner) {
    Hold hold = holds.get(owner);
    return hold == null ? 0 : hold.count;
  }

  /** Parked waiters of the owner's client other than the owner, that take hand-offs. */
  List<String> localWaiters(String owner) {
    String client = ReentrantProtocol.client(owner);
    List<String> waiters = new ArrayList<>();
    parked.forEach(
        (waiter, p) -> {
          if (!waiter.equals(owner) && waiter.startsWith(client) && p.heldBefore == 0) {
            waiters.add(waiter);
          }
        });
    return waiters;
  }

  boolean othersWait(String owner) {
    String client = ReentrantProtocol.client(owner);
    return parked.keySet().stream().anyMatch(w -> !w.equals(owner) && w.startsWith(client));
  }

  @Override
  public String toString() {
    return side.describe() + ": holds " + holds + ", parked " + parked.keySet();
  }

  /** Fresh views for a side, as a {@link HashMap} key by identity. */
  static Map<LockSide, Views> of(List<LockSide> sides) {
    Map<LockSide, Views> views = new LinkedHashMap<>();
    sides.forEach(side -> views.put(side, new Views(side)));
    return views;
  }
}
