package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.it.model.Views.Hold;
import dev.warden.it.model.Views.Parked;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A multi-lock of reentrant locks in one slot, as {@code GroupClaim} takes it (lock-acquire-all:
 * all parts or none, waiting on the part that refused if the caller waits, giving back at once the
 * parts a refusal says an earlier run took), {@code RedisMultiLock.acquireGroup} adopts it (part by
 * part, in order) and {@code GroupClaim} gives back what an acquisition in doubt or a grant nobody
 * uses took (each part by the acquisition's id).
 */
final class GroupProtocol {
  /** One acquisition of the multi-lock: its id, and each part's hold and count when it began. */
  static final class Waiting {
    String id; // a new one after a refusal that gives back what the earlier runs took (GroupClaim)
    final int[] heldBefore;
    final Hold[] before;
    final long[] tokenFloor;
    boolean giveBackDue;
    boolean inDoubt;
    int blocker = -1;

    Waiting(String id, int parts) {
      this.id = id;
      this.heldBefore = new int[parts];
      this.before = new Hold[parts];
      this.tokenFloor = new long[parts];
    }
  }

  private final Wire wire;
  private final Clients clients;
  private final List<ReentrantProtocol> parts;
  final Map<String, Waiting> parked = new LinkedHashMap<>();

  GroupProtocol(Wire wire, Clients clients, List<ReentrantProtocol> parts) {
    this.wire = wire;
    this.clients = clients;
    this.parts = parts;
  }

  /** lock() ({@code willWait}) or tryLock() of the multi-lock by an owner. */
  void acquire(String owner, boolean willWait, Clients.Fault fault) {
    Waiting w = new Waiting(clients.newAcquisitionId(owner), parts.size());
    for (int i = 0; i < parts.size(); i++) {
      // RedisMultiLock: holdBeforeAcquiring, part by part
      w.before[i] = clients.holdBeforeAcquiring(parts.get(i), owner);
      w.heldBefore[i] = w.before[i] == null ? 0 : w.before[i].count;
    }
    attempt(owner, w, willWait, fault);
  }

  /** The next attempt of a parked multi-lock acquisition. */
  void retry(String owner, Clients.Fault fault) {
    attempt(owner, parked.get(owner), true, fault);
  }

  /** A parked multi-lock acquisition gives up. */
  void giveUp(String owner) {
    end(owner, parked.get(owner));
  }

  private List<Object> run(String owner, Waiting w) {
    List<String> keys = new ArrayList<>();
    List<String> args =
        new ArrayList<>(List.of(owner, Long.toString(Clients.LEASE), FENCE_TERMS, w.id));
    for (int i = 0; i < parts.size(); i++) {
      keys.add(parts.get(i).key());
      keys.add(parts.get(i).fence());
      args.add(Integer.toString(w.heldBefore[i]));
    }
    return wire.run("lock-acquire-all", keys, args.toArray(String[]::new));
  }

  private void attempt(String owner, Waiting w, boolean willWait, Clients.Fault fault) {
    for (int i = 0; i < parts.size(); i++) {
      w.tokenFloor[i] = clients.maxToken(parts.get(i)); // a new part's token rises above these
    }
    List<Object> reply = run(owner, w);
    seeTokens(reply);
    if (fault != Clients.Fault.NONE && fault != Clients.Fault.ABANDON) {
      w.giveBackDue = true;
    }
    if (fault == Clients.Fault.LOST_RETRY) {
      reply = run(owner, w);
    } else if (fault == Clients.Fault.LOST_PARK && willWait) {
      w.inDoubt = true;
      parked.put(owner, w);
      return;
    } else if (fault != Clients.Fault.NONE && fault != Clients.Fault.ABANDON) {
      end(owner, w);
      return;
    }
    if (number(reply, 0) != 1) {
      if (reply.size() > 3 && number(reply, 3) == 1) {
        // GroupClaim: an earlier run, whose reply was lost, took parts: they go back at once
        for (int i = 0; i < parts.size(); i++) {
          parts.get(i).giveBack(owner, w.id, w.heldBefore[i]);
        }
        w.id = clients.newAcquisitionId(owner); // the later attempts: GroupClaim
        Coverage.hit("multi-lock gives back parts while waiting");
      }
      w.inDoubt = false; // the refusal said whether an earlier run holds parts: none now
      if (willWait) {
        w.blocker = (int) number(reply, 1) - 1;
        parked.put(owner, w);
        Coverage.hit("multi-lock waits");
        clients.turns.farRefused(parts.get(w.blocker).key(), owner);
      } else {
        end(owner, w);
      }
      return;
    }
    w.inDoubt = false;
    parked.remove(owner);
    if (fault == Clients.Fault.ABANDON) {
      w.giveBackDue = true; // GroupClaim.rollback (or its giveBackInDoubt): the same calls
      end(owner, w);
      return;
    }
    farGone(owner, w);
    adoptAll(owner, w, reply);
  }

  /**
   * RedisMultiLock.acquireGroup: adopts each part's grant in order; when a part's adopt throws (its
   * grant shows the hold the client knew was lost, and is given back), the grants after it go back
   * unused (LockCore.giveBack: by the acquisition's id) and the parts adopted before it are given
   * back as a group taken earlier is (LockCore.giveBackAsync), last first.
   */
  private void adoptAll(String owner, Waiting w, List<Object> reply) {
    for (int i = 0; i < parts.size(); i++) {
      Parked grant = new Parked(w.id, w.heldBefore[i]);
      grant.before = w.before[i];
      if (!clients.adopt(parts.get(i), owner, grant, number(reply, 1 + 2 * i), w.tokenFloor[i])) {
        Coverage.hit("multi-lock part found lost");
        for (int j = parts.size() - 1; j > i; j--) {
          parts.get(j).giveBack(owner, w.id, w.heldBefore[j]);
        }
        for (int j = i - 1; j >= 0; j--) {
          clients.giveBackAsync(parts.get(j), owner);
        }
        return;
      }
    }
  }

  /** The acquisition ends without a grant: GroupClaim.giveBackInDoubt, when an attempt is. */
  private void end(String owner, Waiting w) {
    parked.remove(owner);
    farGone(owner, w);
    if (w.giveBackDue) {
      for (int i = 0; i < parts.size(); i++) {
        parts.get(i).giveBack(owner, w.id, w.heldBefore[i]);
      }
    }
  }

  private void farGone(String owner, Waiting w) {
    if (w.blocker >= 0) {
      clients.turns.farWaiterGone(parts.get(w.blocker).key(), owner);
    }
  }

  private void seeTokens(List<Object> reply) {
    if (number(reply, 0) == 1) {
      for (int i = 0; i < parts.size(); i++) {
        clients.seen(parts.get(i), number(reply, 1 + 2 * i));
      }
    }
  }

  /** Whether the owner's multi-lock acquisition is parked, in doubt, on the part's lock. */
  boolean inDoubt(String owner) {
    Waiting w = parked.get(owner);
    return w != null && w.inDoubt;
  }

  /** unlock() of the multi-lock: each part's own unlock, last part first. */
  void unlock(String owner, Step s) {
    for (int i = parts.size() - 1; i >= 0; i--) {
      Views v = clients.views(parts.get(i));
      if (v.hold(owner) != null) {
        List<String> waiters = v.localWaiters(owner);
        String waiter =
            s.handsOff() && !waiters.isEmpty() ? waiters.get(s.variant() % waiters.size()) : null;
        clients.release(parts.get(i), owner, Clients.Fault.NONE, waiter, s.rowTimeUp());
      }
    }
  }
}
