package dev.warden.it.model;

import dev.warden.it.model.LockSide.Attempt;
import dev.warden.it.model.LockSide.HandOff;
import dev.warden.it.model.LockSide.Release;
import dev.warden.it.model.Views.Hold;
import dev.warden.it.model.Views.Parked;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a Warden client does with the lock scripts' replies, as {@code LockCore}, {@code
 * MutexClaim}, {@code Acquisition} and {@code GiveBacks} do it: one acquisition id per acquisition
 * (its retries send the same), the known count in every call, a grant adopted (or given back when
 * the token shows the earlier hold was lost), a release retried after a lost reply (a retry that
 * finds the last hold gone counts as done), a hand-off to a parked waiter of the same client, the
 * give-back of an attempt in doubt or of a grant nobody will use, and the leave of a waiter that
 * gives up.
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
    LOST_PARK
  }

  private final Map<String, Long> maxToken = new HashMap<>();
  private final Map<String, Integer> acquisitions = new HashMap<>();
  final Map<LockSide, Views> views;

  /** Reported lost leases (the client told its user), for the summary. */
  int lostReported;

  Clients(Map<LockSide, Views> views) {
    this.views = views;
  }

  Views views(LockSide side) {
    return views.get(side);
  }

  /** A new acquisition id, unique within the owner's client (as {@code Owners} makes them). */
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

  /** A new acquisition by the owner: tryLock() ({@code willWait} false) or lock(). */
  void acquire(LockSide side, String owner, boolean willWait, Fault fault) {
    Views v = views(side);
    Parked p = new Parked(newAcquisitionId(owner), v.known(owner));
    p.before = v.hold(owner);
    attempt(side, owner, p, willWait, fault);
  }

  /** The next attempt of a parked acquisition (woken, or its re-check timer). */
  void retry(LockSide side, String owner, Fault fault) {
    attempt(side, owner, views(side).parked.get(owner), true, fault);
  }

  private void attempt(LockSide side, String owner, Parked p, boolean willWait, Fault fault) {
    Views v = views(side);
    long before = p.tokenFloor != null ? p.tokenFloor : maxToken(side);
    Attempt a =
        side.acquire(owner, p.acquisitionId, p.heldBefore, LEASE, v.othersWait(owner), willWait);
    if (a.acquired()) {
      seen(side, a.token());
    }
    if (fault == Fault.LOST_RETRY) {
      a = side.acquire(owner, p.acquisitionId, p.heldBefore, LEASE, v.othersWait(owner), willWait);
    } else if (fault == Fault.LOST_PARK && willWait) {
      p.inDoubt = true;
      p.tokenFloor = p.tokenFloor != null ? p.tokenFloor : before;
      v.parked.put(owner, p);
      return;
    } else if (fault == Fault.LOST_GIVE_UP || fault == Fault.LOST_PARK) {
      p.inDoubt = true;
      end(side, owner, p, willWait);
      return;
    }
    if (a.status() < 0) {
      // WriteDriver throws "holds read holds": the user sees IllegalMonitorStateException
      readHeldRefusal(side, owner);
      end(side, owner, p, willWait);
      return;
    }
    if (!a.acquired()) {
      if (willWait) {
        v.parked.put(owner, p);
      } else {
        end(side, owner, p, false);
      }
      return;
    }
    if (fault == Fault.ABANDON) {
      v.parked.remove(owner);
      side.release(owner, a.count()); // LockCore.giveBack: the grant's Redis count
      finished(side, owner, willWait, false);
      return;
    }
    v.parked.remove(owner);
    finished(side, owner, willWait, true);
    adopt(side, owner, p, a.token(), a.count(), before);
  }

  /** The write side refused an owner for its read holds: wrong unless a fault explains them. */
  private void readHeldRefusal(LockSide side, String owner) {
    for (Views other : views.values()) {
      if (other.side != side && other.side.fence().equals(side.fence())) {
        Hold read = other.hold(owner);
        if ((read == null || read.disturbed) && !other.revived.containsKey(owner)) {
          if (read == null) {
            throw new Violation(
                "write-refused",
                side.describe()
                    + ": "
                    + owner
                    + " is refused for holding read holds, but its client knows none");
          }
        }
      }
    }
  }

  /** LockCore.adopt: records the grant, or gives it back when the earlier hold was lost. */
  void adopt(LockSide side, String owner, Parked p, long token, int redisCount, long before) {
    Views v = views(side);
    Hold hold = p.before != null ? p.before : v.hold(owner);
    if (hold != null && token != hold.token) {
      side.release(owner, redisCount);
      lost(side, owner);
      return;
    }
    if (hold != null && v.hold(owner) != hold) {
      // the hold was found lost while this re-entry was in doubt, then a fault brought it back:
      // the client keeps it lost (its unlock throws), and Redis's count ends with its lease
      long ends = side.expiresAt(owner);
      if (ends >= 0) {
        v.revived.put(owner, ends);
      }
      return;
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
  }

  /** Condition.await's end: takes the lock {@code count} times, then the user has {@code user}. */
  void reacquire(LockSide side, String owner, int count, int user) {
    Parked first = new Parked(newAcquisitionId(owner), views(side).known(owner));
    first.reacquireAfter = count - 1;
    first.restoreUser = user;
    attempt(side, owner, first, true, Fault.NONE);
  }

  /** An acquisition that ends without a grant: the give-back of a doubt, then the leave. */
  private void end(LockSide side, String owner, Parked p, boolean willWait) {
    views(side).parked.remove(owner);
    if (p.inDoubt) {
      side.release(owner, p.heldBefore + 1); // MutexClaim.giveBackInDoubt
    }
    finished(side, owner, willWait, false);
  }

  /** MutexClaim.finished: a waiter that gave up leaves the queue; the driver forgets it. */
  private void finished(LockSide side, String owner, boolean willWait, boolean granted) {
    if (!granted && willWait) {
      side.leave(owner);
    }
    side.forget(owner);
  }

  /** A parked acquisition gives up (its wait ran out, or it was interrupted). */
  void giveUp(LockSide side, String owner) {
    Parked p = views(side).parked.get(owner);
    end(side, owner, p, true);
  }

  // ---- release ----

  /** unlock(): one hold given back; the last one offered to {@code waiter} when not null. */
  void release(LockSide side, String owner, Fault fault) {
    Views v = views(side);
    Hold hold = v.hold(owner);
    hold.user--;
    int heldBefore = hold.count;
    Release r = side.release(owner, heldBefore);
    boolean inDoubt = false;
    if (fault == Fault.LOST_RETRY) {
      inDoubt = true;
      r = side.release(owner, heldBefore);
    }
    released(side, owner, r.held() || (inDoubt && heldBefore == 1), heldBefore);
  }

  private void released(LockSide side, String owner, boolean released, int heldBefore) {
    Hold hold = views(side).hold(owner);
    if (!released) {
      lost(side, owner);
    } else if (heldBefore > 1) {
      hold.count = heldBefore - 1;
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

  /** unlock() of the last hold, handed to the parked waiter {@code waiter} of the same client. */
  void handOff(LockSide side, String owner, String waiter, HandOffFault fault) {
    Views v = views(side);
    Hold hold = v.hold(owner);
    hold.user--;
    Parked p = v.parked.get(waiter);
    long before = maxToken(side);
    HandOff result = side.releaseTo(owner, new LockSide.Terms(waiter, LEASE, p.acquisitionId));
    if (result == HandOff.HANDED) {
      seen(side, side.token());
    }
    if (fault == HandOffFault.NONE && result == HandOff.HANDED) {
      forget(side, owner);
      v.parked.remove(waiter);
      finished(side, waiter, true, true);
      adopt(side, waiter, p, side.token(), 1, before);
      return;
    }
    if (fault == HandOffFault.NONE && result == HandOff.RELEASED) {
      forget(side, owner); // the fair lock's plain release: the waiter waits on
      return;
    }
    if (fault == HandOffFault.NONE && result == HandOff.LOST) {
      lost(side, owner); // the fair lock's release found no hold: the waiter waits on
      return;
    }
    if (fault == HandOffFault.LOST_WAITER_LEFT) {
      end(side, waiter, p, true); // its wait ran out while the transfer was on its way
    }
    // declined (or in doubt): the driver releases as usual, retried until it hears back
    Release r = side.release(owner, 1);
    released(side, owner, r.held() || fault != HandOffFault.NONE, 1);
    if (fault == HandOffFault.LOST_WAITER_STAYS || result != HandOff.HANDED) {
      if (v.parked.containsKey(waiter)) {
        // the transfer may have run: its grant's token rose above this (or an earlier floor)
        p.tokenFloor = p.tokenFloor != null ? p.tokenFloor : before;
        retry(side, waiter, Fault.NONE); // woken: it tries for itself
      }
    }
  }

  // ---- leases ----

  /** One lease-keeper tick of a client: renews its holds of this side; reports those lost. */
  void renew(LockSide side, String client) {
    Views v = views(side);
    List<String> owners = new ArrayList<>();
    v.holds.keySet().stream().filter(o -> o.startsWith(client)).forEach(owners::add);
    for (String owner : side.renew(owners, LEASE)) {
      lost(side, owner);
    }
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
