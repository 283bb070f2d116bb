package dev.warden.it.model;

import dev.warden.it.model.LockSide.Attempt;
import dev.warden.it.model.LockSide.HandOff;
import dev.warden.it.model.LockSide.Release;
import dev.warden.it.model.Views.Hold;
import dev.warden.it.model.Views.Parked;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a Warden client does with the lock scripts' replies, as {@code LockCore}, {@code
 * MutexClaim}, {@code Acquisition}, {@code GiveBacks} and {@code HandOff} do it: one acquisition id
 * per acquisition (its retries send the same), the client's known count in every call (the count a
 * grant leaves is the client's known count plus one), a grant adopted (or given back, by its
 * acquisition id, when the token shows the earlier hold was lost), one release id per release
 * (every run of it sends the same, so a run that finds the hold gone counts as released only when
 * an earlier run ended it), a hand-off to a parked waiter of the same client (rows of them capped
 * while another client's waiter was refused), the give-back of an attempt or hand-off in doubt and
 * of a grant nobody will use (by acquisition id), and the keyed leave of a waiter that gives up.
 */
final class Clients {
  /** The lease every hold asks for: long, so that only the harness's faults end one. */
  static final long LEASE = 60_000;

  /** What goes wrong around one call. */
  enum Fault {
    /** Nothing. */
    NONE,
    /** The script ran, its reply was lost, and the call was sent again with the same arguments. */
    LOST_RETRY,
    /** The script ran, its reply was lost, and the caller gave up: what it took is given back. */
    LOST_GIVE_UP,
    /** The grant came as the caller gave up (interrupted): nobody uses it, it is given back. */
    ABANDON,
    /** The script ran, its reply was lost; the acquisition stays parked and tries again later. */
    LOST_PARK,
    /**
     * A release ran, its reply was lost, and its retries ran out: unlock() throws, the hold stays
     * recorded with its release in doubt, and the next unlock() is the same release again.
     */
    LOST_FAIL
  }

  private final Map<String, Long> maxToken = new HashMap<>();
  private final Map<String, Integer> acquisitions = new HashMap<>();
  final Map<LockSide, Views> views;
  final Turns turns;

  /** Reported lost leases (the client told its user), for the summary. */
  int lostReported;

  Clients(Wire wire, Map<LockSide, Views> views) {
    this.views = views;
    this.turns = new Turns(wire);
  }

  Views views(LockSide side) {
    return views.get(side);
  }

  /** A new acquisition or release id, unique within the owner's client ({@code Owners}). */
  String newAcquisitionId(String owner) {
    String client = ReentrantProtocol.client(owner);
    return Long.toString(acquisitions.merge(client, 1, Integer::sum), 36);
  }

  /** Checks that a new grant's token rises above every token seen for its fence. */
  void newToken(LockSide side, long token, long before) {
    if (token <= before) {
      throw new Violation(
          "token", side.describe() + ": a new grant has token " + token + ", not above " + before);
    }
    seen(side, token);
  }

  void seen(LockSide side, long token) {
    maxToken.merge(side.fence(), token, Math::max);
  }

  long maxToken(LockSide side) {
    return maxToken.getOrDefault(side.fence(), Long.MIN_VALUE);
  }

  // ---- acquisition ----

  /**
   * LockCore.liveHold: the owner's hold as its next acquisition sees it, or null when it has none
   * or gave it up (its last release failed in doubt: only calling unlock() again still uses it).
   */
  Hold liveHold(LockSide side, String owner) {
    Hold hold = views(side).hold(owner);
    return hold == null || (hold.releaseId != null && hold.count == 1) ? null : hold;
  }

  /**
   * LockCore.holdBeforeAcquiring: the hold an acquisition starts from; one the owner gave up is
   * forgotten first (not reported: what Redis may still have of it becomes the acquisition's own).
   */
  Hold holdBeforeAcquiring(LockSide side, String owner) {
    Hold hold = liveHold(side, owner);
    if (hold == null && views(side).hold(owner) != null) {
      forget(side, owner);
    }
    return hold;
  }

  /** A new acquisition by the owner: tryLock() ({@code willWait} false) or lock(). */
  void acquire(LockSide side, String owner, boolean willWait, Fault fault) {
    Hold before = holdBeforeAcquiring(side, owner);
    Parked p = new Parked(newAcquisitionId(owner), before == null ? 0 : before.count);
    p.before = before;
    attempt(side, owner, p, willWait, fault);
  }

  /** The next attempt of a parked acquisition (woken, or its re-check timer). */
  void retry(LockSide side, String owner, Fault fault) {
    attempt(side, owner, views(side).parked.get(owner), true, fault);
  }

  private void attempt(LockSide side, String owner, Parked p, boolean willWait, Fault fault) {
    Views v = views(side);
    long before = maxToken(side); // a new hold's token rises above every one seen
    Attempt a =
        side.acquire(owner, p.acquisitionId, p.heldBefore, LEASE, v.othersWait(owner), willWait);
    if (a.acquired()) {
      seen(side, a.token());
    }
    if (fault != Fault.NONE && fault != Fault.ABANDON) {
      p.giveBackDue = true; // GiveBacks: an attempt failed in a way that leaves open if it ran
    }
    if (fault == Fault.LOST_RETRY) {
      a = side.acquire(owner, p.acquisitionId, p.heldBefore, LEASE, v.othersWait(owner), willWait);
    } else if (fault == Fault.LOST_PARK && willWait) {
      p.inDoubt = true;
      v.parked.put(owner, p);
      return;
    } else if (fault != Fault.NONE && fault != Fault.ABANDON) {
      end(side, owner, p, willWait);
      return;
    }
    p.inDoubt = false; // this attempt's reply is heard: it settles what the lost ones did
    p.rewound = false; // and a refusal wrote its queue entry again
    p.grantUnheard = false;
    if (a.status() < 0) {
      // WriteDriver throws "holds read holds": the user sees IllegalMonitorStateException
      readHeldRefusal(side, owner);
      end(side, owner, p, willWait);
      return;
    }
    if (!a.acquired()) {
      if (willWait) {
        v.parked.put(owner, p);
        turns.refused(side, owner);
      } else {
        end(side, owner, p, false);
      }
      return;
    }
    v.parked.remove(owner);
    if (fault == Fault.ABANDON) {
      // ending as the attempt was on its way: its give-back covers the grant (MutexClaim
      // giveBackInDoubt, or rollback when the grant came first: the same call)
      p.giveBackDue = true;
      end(side, owner, p, willWait);
      return;
    }
    side.forget(owner, p.acquisitionId);
    turns.farWaiterGone(side, owner);
    adopt(side, owner, p, a.token(), before);
    giveBackMissedGrant(side, owner, p); // it took it by this replay: a no-op in Redis
  }

  /** The give-back, by id and token, of a direct grant the acquisition missed (Acquisition). */
  private static void giveBackMissedGrant(LockSide side, String owner, Parked p) {
    if (p.missedGrant != 0) {
      side.giveBackGrant(owner, p.acquisitionId, p.missedGrant);
      p.missedGrant = 0;
    }
  }

  /**
   * The message of a direct grant reaches the waiter's client ({@code lost}: it does not), as
   * Topic.granted handles it: the acquisition it names, if parked, takes it (LockCore.adopt) and
   * confirms it with a renewal; one whose attempt is in flight notes it and tries again; otherwise
   * it is given back by id and token. Returns what happened, in words.
   */
  String granted(LockSide side, LockSide.Grant grant, boolean lost) {
    Views v = views(side);
    String owner = grant.owner();
    if (lost) {
      // a hold its client does not know of until its waiter's next attempt (a replay) takes it,
      // or the grant lease ends it
      long ends = side.expiresAt(owner);
      if (ends >= 0 && v.hold(owner) == null) {
        v.revived.put(owner, ends);
      }
      Parked waiting = v.parked.get(owner);
      if (waiting != null && waiting.acquisitionId.equals(grant.acquisitionId())) {
        waiting.grantUnheard = true; // out of the queue, by a grant it has not heard of
      }
      Coverage.hit("direct grant lost");
      return "the grant to " + owner + " is lost";
    }
    Parked p = v.parked.get(owner);
    if (p != null && p.acquisitionId.equals(grant.acquisitionId()) && !p.inDoubt) {
      long before = maxToken(side);
      v.parked.remove(owner);
      side.forget(owner, p.acquisitionId);
      turns.farWaiterGone(side, owner);
      if (adopt(side, owner, p, grant.token(), before)) {
        giveBackMissedGrant(side, owner, p);
        for (String notRenewed : side.renew(List.of(owner), LEASE)) {
          lost(side, notRenewed); // the confirmation found it gone
        }
      }
      Coverage.hit("direct grant taken");
      return owner + " takes the grant";
    }
    if (p != null && p.acquisitionId.equals(grant.acquisitionId())) {
      p.missedGrant = grant.token(); // its attempt is in flight: its next one replays it
      Coverage.hit("direct grant missed");
      return owner + " misses the grant, its attempt in flight";
    }
    side.giveBackGrant(owner, grant.acquisitionId(), grant.token());
    Coverage.hit("direct grant given back");
    return owner + " gives the grant back";
  }

  /** The write side refused an owner for its read holds: wrong unless its client knows them. */
  private void readHeldRefusal(LockSide side, String owner) {
    for (Views other : views.values()) {
      if (other.side != side
          && other.side.fence().equals(side.fence())
          && other.hold(owner) == null) {
        throw new Violation(
            "write-refused",
            side.describe()
                + ": "
                + owner
                + " is refused for holding read holds, but its client knows none");
      }
    }
  }

  /**
   * LockCore.adopt: records the grant (the owner's count is then its known count plus one), or,
   * when the token shows that the hold it went into is not the one the client knows, gives it back
   * by its acquisition id and reports the earlier hold lost. Returns whether the owner holds it
   * now.
   */
  boolean adopt(LockSide side, String owner, Parked p, long token, long before) {
    Views v = views(side);
    Hold hold = p.before;
    if (hold != null && token != hold.token) {
      side.giveBack(owner, p.acquisitionId, 0);
      if (v.hold(owner) == hold) {
        lost(side, owner);
      }
      return false;
    }
    if (hold != null && v.hold(owner) != hold) {
      // the hold was found lost while this re-entry was in doubt, then a fault brought it back:
      // the client keeps it lost (its unlock throws), and Redis's count ends with its lease
      long ends = side.expiresAt(owner);
      if (ends >= 0) {
        v.revived.put(owner, ends);
      }
      return false;
    }
    if (hold == null) {
      newToken(side, token, before);
      hold = new Hold(p.heldBefore + 1, token);
      v.holds.put(owner, hold);
      v.revived.remove(owner);
    } else {
      hold.count = p.heldBefore + 1;
      hold.user++;
    }
    hold.acquisition = p.acquisitionId;
    if (p.restoreUser > 0) {
      // a condition's reacquisition: the user's count comes back with the last one
      hold.user = p.reacquireAfter == 0 ? p.restoreUser : hold.count;
      if (p.reacquireAfter > 0) {
        Parked next = new Parked(newAcquisitionId(owner), hold.count);
        next.before = hold;
        next.reacquireAfter = p.reacquireAfter - 1;
        next.restoreUser = p.restoreUser;
        attempt(side, owner, next, true, Fault.NONE);
      }
    }
    return true;
  }

  /** Condition.await's end: takes the lock {@code count} times, then the user has {@code user}. */
  void reacquire(LockSide side, String owner, int count, int user) {
    Hold before = holdBeforeAcquiring(side, owner);
    Parked first = new Parked(newAcquisitionId(owner), before == null ? 0 : before.count);
    first.before = before;
    first.reacquireAfter = count - 1;
    first.restoreUser = user;
    attempt(side, owner, first, true, Fault.NONE);
  }

  /**
   * An acquisition that ends without a grant (GiveBacks.beginEnding): the give-back of what an
   * attempt or a hand-off in doubt may have taken, then the keyed leave; the driver forgets it.
   */
  private void end(LockSide side, String owner, Parked p, boolean willWait) {
    ending(side, owner, p, willWait).run();
  }

  /** Ends the acquisition in the client; returns its calls to Redis, to send now or later. */
  private Runnable ending(LockSide side, String owner, Parked p, boolean willWait) {
    views(side).parked.remove(owner);
    turns.farWaiterGone(side, owner);
    Runnable leave = willWait ? side.leave(owner, p.acquisitionId) : () -> {}; // MutexClaim.leave
    side.forget(owner, p.acquisitionId);
    boolean giveBack = p.giveBackDue;
    return () -> {
      if (giveBack) {
        side.giveBack(owner, p.acquisitionId, p.heldBefore); // MutexClaim.giveBackInDoubt
      }
      leave.run();
      giveBackMissedGrant(side, owner, p);
    };
  }

  /**
   * A parked acquisition gives up (its wait ran out, or it was interrupted). {@code late}: its
   * give-back and leave are sent, but reach Redis only later ({@link #deliverLate}), after what the
   * owner does next.
   */
  void giveUp(LockSide side, String owner, boolean late) {
    Views v = views(side);
    Parked p = v.parked.get(owner);
    Runnable calls = ending(side, owner, p, true);
    if (!late) {
      calls.run();
      return;
    }
    deliverLater(v, owner, calls, p.giveBackDue);
  }

  /**
   * Queues {@code calls} of the owner to reach Redis at the next {@link #deliverLate}, after what
   * it queued before; {@code inDoubt}: they may settle a hold the client does not know of.
   */
  private static void deliverLater(Views v, String owner, Runnable calls, boolean inDoubt) {
    Views.Late earlier = v.late.get(owner);
    v.late.put(
        owner,
        earlier == null
            ? new Views.Late(calls, inDoubt)
            : new Views.Late(
                () -> {
                  earlier.calls().run();
                  calls.run();
                },
                earlier.inDoubt() || inDoubt));
  }

  /**
   * The late give-backs and leaves of acquisitions that gave up reach Redis now, in the order they
   * were sent; returns whose, or null when none was on its way.
   */
  String deliverLate() {
    List<String> whose = new ArrayList<>();
    for (Views v : views.values()) {
      v.late.forEach(
          (owner, late) -> {
            if (v.parked.containsKey(owner)) {
              Coverage.hit("late leave behind the next acquisition");
            }
            late.calls().run();
            whose.add(owner + " on " + v.side.describe());
          });
      v.late.clear();
    }
    return whose.isEmpty() ? null : "the late give-backs and leaves of " + whose + " reach Redis";
  }

  // ---- release ----

  /**
   * unlock() of one hold (LockCore.release): the same release id for every run of this release; the
   * last hold goes to a parked waiter of this client where the lock type hands off ({@code waiter},
   * or none), or as a real release that yields when a full row of hand-offs ends.
   */
  void release(LockSide side, String owner, Fault fault, String waiter, boolean rowTimeUp) {
    Views v = views(side);
    Hold hold = v.hold(owner);
    int heldBefore = hold.count;
    if (hold.releaseId == null) {
      hold.releaseId = newAcquisitionId(owner);
      hold.endedAt = -1;
    }
    String releaseId = hold.releaseId;
    if (heldBefore == 1 && side.handsOff()) {
      String to = turns.handOffTo(side, owner, waiter, v.othersWait(owner), rowTimeUp);
      if (to != null) {
        handOff(side, owner, to, releaseId, fault);
        return;
      }
    }
    boolean yielding = heldBefore == 1 && turns.yielded(side, owner);
    if (yielding) {
      Coverage.hit("yielding release");
    }
    Release r =
        run(side, owner, heldBefore, () -> lower(side, owner, heldBefore, releaseId, yielding));
    if (fault == Fault.LOST_RETRY || fault == Fault.LOST_FAIL) {
      // Calls.awaitRetrying: the same release again
      r = run(side, owner, heldBefore, () -> lower(side, owner, heldBefore, releaseId, yielding));
    }
    if (fault == Fault.LOST_FAIL) {
      // every run's reply was lost: unlock() throws; the hold stays recorded, in doubt, for the
      // same release to be sent again; a last one is renewed no more (LockCore.releaseFailed),
      // and the owner's next acquisition starts afresh instead of re-entering it
      if (heldBefore == 1) {
        hold.renewing = false;
      }
      return;
    }
    released(side, owner, r.held());
  }

  private Release lower(
      LockSide side, String owner, int heldBefore, String releaseId, boolean yielding) {
    return yielding
        ? side.releaseYielding(owner, releaseId)
        : side.release(owner, heldBefore, releaseId);
  }

  /**
   * One run of the owner's release (its script call, given), checked: it may count as released only
   * when the hold was there, or an earlier run of the same release ended it; and it must when so,
   * unless a fault since may have taken that run's marker.
   */
  private Release run(LockSide side, String owner, int heldBefore, Supplier<Release> call) {
    return run(side, owner, heldBefore, call, true);
  }

  /** As {@link #run}; {@code verdict} false: the call's reply says nothing about the release. */
  private Release run(
      LockSide side, String owner, int heldBefore, Supplier<Release> call, boolean verdict) {
    Hold hold = views(side).hold(owner);
    boolean present = side.holds().containsKey(owner);
    Release r = call.get();
    if (!verdict) {
      if (present && heldBefore == 1) {
        hold.endedAt = hold.faults;
      }
      return r;
    }
    if (r.held() && !present && hold.endedAt < 0) {
      throw new Violation(
          "release-verdict",
          side.describe()
              + ": a release of "
              + owner
              + " counts as done, but the hold was gone, and no run of it had ended it (a lost"
              + " lease hidden)");
    }
    if (!r.held() && !present && hold.endedAt >= 0 && hold.endedAt == hold.faults) {
      throw new Violation(
          "release-verdict",
          side.describe()
              + ": a release of "
              + owner
              + " reports the hold lost, but an earlier run of it ended it, and no fault since");
    }
    if (present && heldBefore == 1) {
      hold.endedAt = hold.faults; // this run ends the hold, and marks it as its own
    }
    return r;
  }

  /** The verdict of a release that got its answer: released, or the hold was lost before. */
  private void released(LockSide side, String owner, boolean released) {
    Hold hold = views(side).hold(owner);
    hold.releaseId = null;
    if (!released) {
      lost(side, owner);
    } else if (hold.count > 1) {
      hold.count--;
      hold.user--;
      hold.acquisition = null; // the script cleared '#a'
    } else {
      forget(side, owner);
    }
  }

  /** What goes wrong around a hand-off's transfer. */
  enum HandOffFault {
    NONE,
    /** The transfer ran, its reply was lost; the waiter is still parked and tries for itself. */
    LOST_WAITER_STAYS,
    /** The transfer ran, its reply was lost, and the waiter's acquisition had ended meanwhile. */
    LOST_WAITER_LEFT
  }

  private void handOff(LockSide side, String owner, String waiter, String releaseId, Fault f) {
    HandOffFault fault =
        f == Fault.LOST_RETRY
            ? HandOffFault.LOST_WAITER_STAYS
            : f == Fault.LOST_FAIL ? HandOffFault.LOST_WAITER_LEFT : HandOffFault.NONE;
    Views v = views(side);
    Parked p = v.parked.get(waiter);
    long before = maxToken(side); // a new hold's token rises above every one seen
    HandOff[] handOff = new HandOff[1];
    run(
        side,
        owner,
        1,
        () -> {
          handOff[0] =
              side.releaseTo(owner, new LockSide.Terms(waiter, LEASE, p.acquisitionId), releaseId);
          return new Release(handOff[0] != HandOff.LOST, 0);
        },
        // lock-transfer's {0} is no verdict (the release that follows it is); fair-release's is
        side instanceof FairProtocol);
    HandOff result = handOff[0];
    if (result == HandOff.HANDED) {
      seen(side, side.token());
      Coverage.hit("hand-off " + fault);
    }
    if (fault == HandOffFault.NONE) {
      switch (result) {
        case HANDED -> {
          turns.transferred(side);
          turns.handedOff(side, owner, side.othersWaitFar());
          released(side, owner, true);
          v.parked.remove(waiter);
          side.forget(waiter, p.acquisitionId);
          turns.farWaiterGone(side, waiter);
          adopt(side, waiter, p, side.token(), before);
        }
        case RELEASED -> released(side, owner, true); // the fair lock's head is another: waits on
        case LOST -> released(side, owner, false); // the fair lock's release found no hold
        case NOT_HELD -> {
          retry(side, waiter, Fault.NONE); // declined: the waiter tries at once
          released(
              side, owner, run(side, owner, 1, () -> side.release(owner, 1, releaseId)).held());
        }
      }
      return;
    }
    // the reply was lost: the waiter is told the hand-off is in doubt (Successor.handOffInDoubt)
    p.giveBackDue = true;
    if (fault == HandOffFault.LOST_WAITER_LEFT) {
      // its wait had run out meanwhile: it left, and now gives back what it may have been handed
      Parked left = v.parked.remove(waiter);
      turns.farWaiterGone(side, waiter);
      side.leave(waiter, left.acquisitionId).run();
      side.forget(waiter, left.acquisitionId);
      side.giveBack(waiter, left.acquisitionId, left.heldBefore);
    } else {
      retry(side, waiter, Fault.NONE); // it tries at once, and finds what it was given
    }
    // the release is retried with the same id: it finds that its first run ended the hold
    released(side, owner, run(side, owner, 1, () -> side.release(owner, 1, releaseId)).held());
  }

  /**
   * LockCore.giveBackAsync: undoes the acquisition that last raised the owner's hold (a
   * multi-lock's part when the group is not taken after all): the record drops one hold at once,
   * and a plain release of the count the client knew goes out with its own release id.
   */
  void giveBackAsync(LockSide side, String owner) {
    Hold hold = views(side).hold(owner);
    if (hold == null) {
      return;
    }
    int heldBefore = hold.count;
    String undone = hold.acquisition;
    if (heldBefore > 1) {
      hold.count--;
      hold.user--;
      hold.acquisition = null;
    } else {
      forget(side, owner);
    }
    if (undone == null) {
      side.release(owner, heldBefore, newAcquisitionId(owner));
    } else {
      side.giveBack(owner, undone, heldBefore - 1); // names the acquisition it undoes
    }
  }

  // ---- leases ----

  /** One lease-keeper tick of a client: renews its holds of this side; reports those lost. */
  void renew(LockSide side, String client) {
    Views v = views(side);
    List<String> owners = new ArrayList<>();
    v.holds.forEach(
        (owner, hold) -> {
          if (owner.startsWith(client) && hold.renewing) {
            owners.add(owner);
          }
        });
    for (String owner : side.renew(owners, LEASE)) {
      Hold hold = v.hold(owner);
      if (hold.releaseId != null && hold.count == 1) {
        hold.renewing = false; // only its release can tell whether it ended it (LeaseKeeper)
      } else {
        lost(side, owner);
      }
    }
  }

  /**
   * A lease-keeper tick whose renewals reach Redis while their replies are lost, until the client's
   * lease deadline passes (LeaseKeeper): the client declares its renewed holds of this side lost,
   * tells their users, forgets them, and ends each in Redis by its token (LockDriver.dropLost).
   * What the late renewals kept is explained until the drop ends it. {@code late}: the drops reach
   * Redis only later ({@link #deliverLate}), after what the owners do next: an acquisition afresh
   * takes a lingering hold over under a new token, which the drop must leave alone.
   */
  void deadlinePasses(LockSide side, String client, boolean late) {
    Views v = views(side);
    Map<String, Hold> lost = new LinkedHashMap<>();
    v.holds.forEach(
        (owner, hold) -> {
          if (owner.startsWith(client) && hold.renewing) {
            lost.put(owner, hold);
          }
        });
    var unused = side.renew(new ArrayList<>(lost.keySet()), LEASE); // its reply is lost
    lost.forEach(
        (owner, hold) -> {
          lostReported++;
          v.holds.remove(owner);
          long ends = side.expiresAt(owner);
          if (ends >= 0) {
            v.revived.put(owner, ends); // kept by the late renewals until the drop
          }
          Runnable drop =
              () -> {
                if (side.dropLost(owner, hold.token).held()) {
                  Coverage.hit("lost hold dropped by its token");
                } else if (side.holds().containsKey(owner)) {
                  Coverage.hit("drop left the owner's later hold alone");
                }
              };
          if (!late) {
            drop.run();
            return;
          }
          deliverLater(v, owner, drop, false);
        });
  }

  /** The client learnt that the hold was lost: it tells the user and forgets it. */
  void lost(LockSide side, String owner) {
    lostReported++;
    forget(side, owner);
  }

  /**
   * Forgets a hold that ended for its client. If Redis still has a hold of the owner that a fault
   * explains (the hold was disturbed), it is exempt until it ends, as a revived one.
   */
  void forget(LockSide side, String owner) {
    Views v = views(side);
    Hold hold = v.holds.remove(owner);
    if (hold != null && hold.disturbed && hold.faultEnds >= 0 && side.expiresAt(owner) >= 0) {
      // what the fault left in Redis is explained until its end; anything taken since is not
      v.revived.put(owner, hold.faultEnds);
    }
  }
}
