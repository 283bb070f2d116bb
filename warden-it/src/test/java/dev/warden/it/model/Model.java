package dev.warden.it.model;

import dev.warden.internal.base.Settings;
import dev.warden.it.model.Step.Op;
import dev.warden.it.model.Views.Hold;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One run of a sequence against the real scripts: the objects of a family, the clients' views of
 * them ({@link Clients}), the interpretation of each step, and the invariants checked after it
 * ({@link Invariants}).
 */
final class Model {
  /** The objects a sequence works on. */
  enum Family {
    /** Two reentrant locks, a multi-lock of both, a condition of the first. */
    REENTRANT,
    /** A fair lock and a condition of it. */
    FAIR,
    /** A read-write lock's two sides. */
    READ_WRITE,
    /** A semaphore, a leased semaphore, a count-down latch. */
    PERMITS
  }

  static final int CLIENTS = 3;
  static final int THREADS = 3;

  // the shape of the sequence being generated: how many clients and threads take part, and the
  // object most steps go to (so that threads of one client meet there: hand-offs, rows, turns)
  private int clientsInPlay;
  private int threadsInPlay;
  private int focus = -1;

  final Wire wire;
  final Family family;
  final List<LockSide> sides = new ArrayList<>();
  final Clients clients;
  private GroupProtocol group;
  ConditionProtocol condition;
  LockSide conditionLock;
  Permits permits;
  private Map<String, Wire.Saved> snapshot;

  Model(Wire wire, Family family) {
    this.wire = wire;
    this.family = family;
    switch (family) {
      case REENTRANT -> {
        ReentrantProtocol l1 = new ReentrantProtocol(wire, "L1");
        ReentrantProtocol l2 = new ReentrantProtocol(wire, "L2");
        sides.add(l1);
        sides.add(l2);
        clients = new Clients(wire, Views.of(sides));
        group = new GroupProtocol(wire, clients, List.of(l1, l2));
        condition = new ConditionProtocol(wire, clients, l1, l1.key());
        conditionLock = l1;
      }
      case FAIR -> {
        FairProtocol fair = new FairProtocol(wire, "F");
        sides.add(fair);
        clients = new Clients(wire, Views.of(sides));
        condition = new ConditionProtocol(wire, clients, fair, "warden:{F}:fair");
        conditionLock = fair;
      }
      case READ_WRITE -> {
        ReadWriteProtocol rw = new ReadWriteProtocol(wire, "R");
        sides.add(rw.write);
        sides.add(rw.read);
        clients = new Clients(wire, Views.of(sides));
        // the read holds the client knows (none when known lost, or given up: liveHold)
        rw.readHolds(
            owner -> {
              Hold read = clients.liveHold(rw.read, owner);
              return read == null ? 0 : read.count;
            });
      }
      default -> {
        clients = new Clients(wire, Views.of(sides));
        permits = new Permits(wire);
      }
    }
  }

  /** Draws the next step of a sequence of this family. */
  Step generate(Random random) {
    if (focus < 0) {
      clientsInPlay = 2 + random.nextInt(CLIENTS - 1);
      threadsInPlay = 2 + random.nextInt(THREADS - 1);
      focus = random.nextInt(Math.max(1, sides.size()));
    }
    int client = 1 + random.nextInt(clientsInPlay);
    int thread = 1 + random.nextInt(threadsInPlay);
    int variant = random.nextInt(60);
    if (family == Family.PERMITS) {
      return Permits.generate(random, client, thread, variant);
    }
    int target = random.nextInt(10) < 7 ? focus : random.nextInt(sides.size());
    int roll = random.nextInt(100);
    Op op;
    if (roll < 23) {
      op = Op.ACQUIRE;
    } else if (roll < 35) {
      op = Op.RELEASE;
    } else if (roll < 43) {
      op = Op.RELOCK;
    } else if (roll < 51) {
      op = Op.RETRY;
    } else if (roll < 56) {
      op = Op.GIVE_UP;
    } else if (roll < 60) {
      op = Op.RENEW;
    } else if (roll < 63) {
      op = Op.EXPIRE;
    } else if (roll < 67) {
      op = Op.SNAPSHOT;
    } else if (roll < 71) {
      op = Op.REWIND;
    } else if (roll < 75) {
      // turns are the reentrant lock's
      op = roll < 73 || family != Family.REENTRANT ? Op.LATE_LEAVE : Op.TURN_ENDS;
    } else if (roll < 82 && group != null) {
      op = random.nextBoolean() ? Op.MULTI_LOCK : Op.MULTI_UNLOCK;
    } else if (roll < 87 && condition != null) {
      op = Op.AWAIT;
    } else if (roll < 92 && condition != null) {
      op = Op.SIGNAL;
    } else if (condition != null) {
      op = Op.WAKE;
    } else {
      op = random.nextBoolean() ? Op.ACQUIRE : Op.RELEASE;
    }
    return new Step(op, target, client, thread, variant);
  }

  /** Whether the owner's multi-lock acquisition is parked with an attempt in doubt. */
  boolean groupInDoubt(String owner) {
    return group != null && group.inDoubt(owner);
  }

  /** Whether the owner's thread is blocked: parked on an acquisition, or inside await. */
  private boolean busy(String owner) {
    for (Views v : clients.views.values()) {
      if (v.parked.containsKey(owner)) {
        return true;
      }
    }
    return (group != null && group.parked.containsKey(owner))
        || (condition != null && condition.awaiting.containsKey(owner));
  }

  /**
   * Applies a step; returns what it did, in words, or null when it did not apply (and changed
   * nothing). A violation found inside the step names the step.
   */
  String apply(Step s) {
    for (LockSide side : sides) {
      if (side instanceof ReentrantProtocol lock) {
        lock.hints(s.variant() / 10); // 0 to 5, apart from the faults' variant % 10
      }
    }
    try {
      return family == Family.PERMITS ? permits.apply(s) : applyToLocks(s);
    } catch (Violation violation) {
      throw violation.during(intent(s));
    }
  }

  /** A step in words before it is applied (for one that broke an invariant midway). */
  private String intent(Step s) {
    String on =
        family == Family.PERMITS
            ? "target " + s.target()
            : sides.get(s.target() % sides.size()).describe();
    return s.owner()
        + " "
        + s.op()
        + " "
        + on
        + " (acquire: "
        + (s.willWait() ? "lock()" : "tryLock()")
        + fault(s.acquireFault())
        + "; release: "
        + (s.handsOff() ? "hand-off, else " : "")
        + s.releaseFault()
        + ")";
  }

  private String applyToLocks(Step s) {
    String done = applyToLocksOnce(s);
    if (done == null || (family != Family.REENTRANT && family != Family.FAIR)) {
      return done;
    }
    // the direct grants its releases made reach their clients (a give-back may grant again)
    StringBuilder grants = new StringBuilder(done);
    for (int round = 0; round < 10; round++) {
      boolean any = false;
      for (LockSide side : sides) {
        for (LockSide.Grant grant : side.takeGrants()) {
          any = true;
          grantLease(side, grant);
          clients.turns.granted(side);
          grants.append("; ").append(clients.granted(side, grant, s.grantLost() && round == 0));
        }
      }
      if (!any) {
        break;
      }
    }
    return grants.toString();
  }

  /**
   * A direct grant holds the lock for at most the grant lease until its waiter confirms it (and for
   * no longer than the waiter's own lease): so a grant to a process that died after its message
   * keeps the others out for that long at most.
   */
  private void grantLease(LockSide side, LockSide.Grant grant) {
    long left = side.expiresAt(grant.owner()) - wire.serverMillis();
    if (left > Math.min(Settings.GRANT_LEASE_MILLIS, Clients.LEASE)) {
      throw new Violation(
          "grant-lease",
          side.describe()
              + ": the direct grant to "
              + grant.owner()
              + " holds the lock for "
              + left
              + " ms before its waiter confirms it, beyond the grant lease");
    }
  }

  private String applyToLocksOnce(Step s) {
    String owner = s.owner();
    LockSide side = sides.get(s.target() % sides.size());
    Views v = clients.views(side);
    String on = side.describe();
    switch (s.op()) {
      case ACQUIRE -> {
        if (busy(owner) || guardRefuses(side, owner)) {
          return null;
        }
        clients.acquire(side, owner, s.willWait(), s.acquireFault());
        return owner + (s.willWait() ? " lock() " : " tryLock() ") + on + fault(s.acquireFault());
      }
      case RETRY -> {
        Clients.Fault fault =
            s.acquireFault() == Clients.Fault.LOST_PARK
                ? Clients.Fault.LOST_PARK
                : s.acquireFault() == Clients.Fault.LOST_RETRY
                    ? Clients.Fault.LOST_RETRY
                    : Clients.Fault.NONE;
        if (group != null && group.parked.containsKey(owner)) {
          group.retry(owner, fault);
          return owner + " (parked) tries multi-lock(L1, L2) again" + fault(fault);
        }
        if (!v.parked.containsKey(owner)) {
          return null;
        }
        clients.retry(side, owner, fault);
        return owner + " (parked) tries " + on + " again" + fault(fault);
      }
      case GIVE_UP -> {
        if (group != null && group.parked.containsKey(owner)) {
          group.giveUp(owner);
          return owner + " (parked) gives up on multi-lock(L1, L2)";
        }
        if (!v.parked.containsKey(owner)) {
          return null;
        }
        clients.giveUp(side, owner, s.late());
        return owner
            + " (parked) gives up on "
            + on
            + (s.late() ? " (its give-back and leave reach Redis later)" : "");
      }
      case LATE_LEAVE -> {
        return clients.deliverLate();
      }
      case RELEASE -> {
        Hold hold = v.hold(owner);
        if (busy(owner) || hold == null) {
          return null;
        }
        String waiter = waiter(v, owner, s);
        clients.release(side, owner, s.releaseFault(), waiter, s.rowTimeUp());
        return owner
            + " unlock() "
            + on
            + (waiter != null ? ", may hand it to " + waiter : "")
            + fault(s.releaseFault());
      }
      case RELOCK -> {
        return relock(side, s);
      }
      case RENEW -> {
        if (s.variant() % 4 == 3) {
          boolean late = s.variant() % 8 == 7;
          clients.deadlinePasses(side, s.clientPrefix(), late);
          return s.clientPrefix()
              + " lease keeper's renewals of "
              + on
              + " reach Redis, their replies do not: past its deadline it drops its holds by"
              + " token"
              + (late ? " (the drops reach Redis later)" : "");
        }
        clients.renew(side, s.clientPrefix());
        return s.clientPrefix() + " lease keeper renews its holds of " + on;
      }
      case EXPIRE -> {
        return expire(side, owner);
      }
      case TURN_ENDS -> {
        return clients.turns.timePasses(sides);
      }
      case SNAPSHOT -> {
        snapshot = wire.snapshot();
        return "SAVE (snapshot)";
      }
      case REWIND -> {
        if (snapshot == null) {
          return null;
        }
        rewind();
        return "restart from the snapshot (writes since are lost)";
      }
      case MULTI_LOCK -> {
        if (busy(owner)) {
          return null;
        }
        group.acquire(owner, s.willWait(), s.acquireFault());
        return owner
            + " multi-lock(L1, L2)."
            + (s.willWait() ? "lock()" : "tryLock()")
            + fault(s.acquireFault());
      }
      case MULTI_UNLOCK -> {
        if (busy(owner) || !holdsAll(owner)) {
          return null;
        }
        group.unlock(owner, s);
        return owner + " multi-lock(L1, L2).unlock()";
      }
      case AWAIT -> {
        Views locked = clients.views(conditionLock);
        if (busy(owner) || locked.hold(owner) == null) {
          return null;
        }
        String waiter = waiter(locked, owner, s);
        condition.await(owner, waiter);
        return owner
            + " condition.await() on "
            + conditionLock.describe()
            + (waiter != null ? ", its release may hand it to " + waiter : "");
      }
      case SIGNAL -> {
        if (busy(owner) || clients.views(conditionLock).hold(owner) == null) {
          return null;
        }
        condition.signal(owner, s.variant() % 2 == 0);
        return owner + (s.variant() % 2 == 0 ? " signalAll()" : " signal()");
      }
      case WAKE -> {
        if (!condition.awaiting.containsKey(owner)) {
          return null;
        }
        boolean giveUp = s.variant() % 3 == 0;
        condition.wake(owner, giveUp);
        return owner + (giveUp ? " await times out" : " await checks for its signal");
      }
      default -> {
        return null;
      }
    }
  }

  /**
   * A thread that holds the object once (of the step's client first, else of any) releases it and
   * at once locks it again, as threads that take turns in a loop do (the release hands the lock to
   * a parked thread of its client where it can): so rows of hand-offs form.
   */
  private String relock(LockSide side, Step s) {
    Views v = clients.views(side);
    List<String> holders = new ArrayList<>();
    v.holds.forEach(
        (owner, hold) -> {
          if (hold.count == 1 && !busy(owner)) {
            holders.add(owner);
          }
        });
    holders.sort(
        (a, b) ->
            Boolean.compare(!a.startsWith(s.clientPrefix()), !b.startsWith(s.clientPrefix())));
    for (String owner : holders) {
      String waiter = waiter(v, owner, s);
      clients.release(side, owner, s.releaseFault(), waiter, s.rowTimeUp());
      if (v.hold(owner) != null) {
        return owner + " unlock() " + side.describe() + fault(s.releaseFault()); // in doubt
      }
      // the lock between the release and the next lock() is a state like any other: a real release
      // there ends the count of hand-offs a far waiter saw (it must be refused anew to count again)
      clients.turns.check(sides);
      clients.acquire(side, owner, true, Clients.Fault.NONE);
      return owner
          + " unlock() "
          + side.describe()
          + (waiter != null ? ", may hand it to " + waiter : "")
          + fault(s.releaseFault())
          + ", then lock() again";
    }
    return null;
  }

  /** The parked waiter of the owner's client a release of its last hold would hand off to. */
  private static String waiter(Views v, String owner, Step s) {
    List<String> waiters = v.localWaiters(owner);
    return s.handsOff() && !waiters.isEmpty() ? waiters.get(s.variant() % waiters.size()) : null;
  }

  private static String fault(Clients.Fault fault) {
    return fault == Clients.Fault.NONE ? "" : " [" + fault + "]";
  }

  /** The write lock's guard: no write lock while the thread holds read holds (no Redis call). */
  private boolean guardRefuses(LockSide side, String owner) {
    if (family != Family.READ_WRITE || side != sides.get(0)) {
      return false;
    }
    return clients.liveHold(sides.get(1), owner) != null && clients.liveHold(side, owner) == null;
  }

  private boolean holdsAll(String owner) {
    return sides.stream().allMatch(side -> clients.views(side).hold(owner) != null);
  }

  private String expire(LockSide side, String owner) {
    Views v = clients.views(side);
    if (side.exclusive()) {
      if (v.holds.isEmpty() && side.holds().isEmpty()) {
        return null;
      }
      side.expire(owner);
      v.holds.values().forEach(Model::disturb);
      return "the lease of " + side.describe() + " runs out";
    }
    if (!side.holds().containsKey(owner)) {
      return null;
    }
    side.expire(owner);
    if (v.hold(owner) != null) {
      disturb(v.hold(owner));
    }
    return "the lease of " + owner + "'s " + side.describe() + " runs out";
  }

  /** A hold whose lease a fault ended: its client does not know yet. */
  private static void disturb(Hold hold) {
    hold.faults++;
    hold.disturbed = true;
    hold.faultEnds = -1;
  }

  /** Restores the snapshot: every known hold may have changed; holds nobody knows are revived. */
  private void rewind() {
    wire.restore(snapshot);
    clients.turns.rewound();
    for (Views v : clients.views.values()) {
      v.parked.values().forEach(p -> p.rewound = true);
      v.holds.forEach(
          (owner, hold) -> {
            hold.faults++;
            hold.disturbed = true;
            hold.faultEnds = v.side.expiresAt(owner);
          });
      v.revived.clear();
      for (String owner : v.side.holds().keySet()) {
        if (v.hold(owner) == null) {
          v.revived.put(owner, v.side.expiresAt(owner));
        }
      }
    }
  }

  void check() {
    wire.hearing.check();
    if (family == Family.PERMITS) {
      permits.check();
    } else {
      Invariants.check(this);
      clients.turns.check(sides);
    }
    Invariants.ttl(wire);
  }
}
