package dev.warden.it.model;

import dev.warden.internal.base.Settings;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The reentrant lock's turns between clients: the client's side of it as {@code HandOff.Rows} keeps
 * it (a row of hand-offs between one client's threads, made while a waiter no hand-off reaches was
 * refused, ends after {@link #ROW} hand-offs with a real release that yields), and two invariants
 * about it:
 *
 * <ul>
 *   <li><b>passed-over</b>: a waiter of another client (or a multi-lock's), refused while one
 *       client held the lock, sees at most {@link #ROW} hand-offs between that client's threads
 *       before the lock is really released. Only hand-offs whose reply was heard count: the
 *       client's rows do not count one whose reply was lost ({@code HandOff.Taken.inDoubt}), so
 *       while their replies are lost a far waiter can see more (each costs a failed call);
 *   <li><b>turn</b>: a lock hash nobody holds keeps no client out for longer than one turn: it is
 *       nominated for a client ({@code #n}: the others wait at most {@link
 *       Settings#CROSS_CLIENT_TURN_MILLIS}) or reserved from one ({@code #r}: that one waits at
 *       most {@link Settings#CROSS_CLIENT_RESERVATION_MILLIS}), and lives at most {@link
 *       Settings#NOMINATED_LOCK_MILLIS}.
 * </ul>
 *
 * Other lock types hand off without rows (the fair lock's queue decides).
 */
final class Turns {
  /**
   * The hand-offs in a row the model's clients make while a far waiter was refused: fewer than
   * {@link Settings#HAND_OFFS_IN_A_ROW}, so that rows end (and the scripts' yielding release and
   * reservation run) within a sequence; the scripts do not know the number.
   */
  static final int ROW = 2;

  private final Wire wire;
  private final Map<String, Integer> rows = new HashMap<>(); // by client and lock
  private final Set<String> yielding = new HashSet<>();
  private final Map<String, Set<String>> farWaiters = new HashMap<>(); // by lock hash
  private final Map<String, Integer> passedOver = new HashMap<>(); // by lock hash

  Turns(Wire wire) {
    this.wire = wire;
  }

  private static String row(String lock, String owner) {
    return ReentrantProtocol.client(owner) + lock;
  }

  /**
   * HandOff.next() for a release of the owner's last hold: the waiter it hands the lock to, or null
   * for a real release. {@code topic}: some waiter of this client waits on the lock's channel;
   * {@code waiter}: the parked waiter a hand-off would take, or null; {@code rowTimeUp}: the row
   * has lasted {@link Settings#HAND_OFF_ROW_MILLIS}.
   */
  String handOffTo(LockSide side, String owner, String waiter, boolean topic, boolean rowTimeUp) {
    if (!(side instanceof ReentrantProtocol lock)) {
      return waiter; // FairDriver: its earliest local waiter, if the script finds it the head
    }
    String row = row(lock.key(), owner);
    if (!topic) {
      rows.remove(row);
      return null;
    }
    Integer turns = rows.get(row);
    if (turns != null && (turns >= ROW || rowTimeUp)) {
      rows.remove(row);
      yielding.add(row);
      return null;
    }
    if (waiter == null) {
      rows.remove(row);
    }
    return waiter;
  }

  /** Whether the last {@link #handOffTo} ended a full row (asking consumes it). */
  boolean yielded(LockSide side, String owner) {
    return side instanceof ReentrantProtocol lock && yielding.remove(row(lock.key(), owner));
  }

  /** A hand-off was made; {@code othersWait}: Redis said a far waiter was refused ('#o'). */
  void handedOff(LockSide side, String owner, boolean othersWait) {
    if (side instanceof ReentrantProtocol lock) {
      if (othersWait) {
        rows.merge(row(lock.key(), owner), 1, Integer::sum);
      } else {
        rows.remove(row(lock.key(), owner));
      }
    }
  }

  // ---- the invariants' bookkeeping ----

  /** A waiting acquisition of the owner was refused: a far waiter if another client holds it. */
  void refused(LockSide side, String owner) {
    if (side instanceof ReentrantProtocol lock) {
      String holder = wire.redis.hget(lock.key(), "#c");
      boolean nominated = wire.redis.hexists(lock.key(), "#n");
      if (nominated || (holder != null && !holder.equals(ReentrantProtocol.client(owner)))) {
        farRefused(lock.key(), owner);
      }
    }
  }

  /** A multi-lock's waiter was refused by this lock: no hand-off reaches it. */
  void farRefused(String lock, String owner) {
    farWaiters.computeIfAbsent(lock, k -> new HashSet<>()).add(owner);
    passedOver.putIfAbsent(lock, 0);
    Coverage.hit("far waiter refused");
  }

  /** The owner's acquisition of the lock is over (granted, or ended). */
  void farWaiterGone(LockSide side, String owner) {
    if (side instanceof ReentrantProtocol lock) {
      farWaiterGone(lock.key(), owner);
    }
  }

  void farWaiterGone(String lock, String owner) {
    Set<String> waiting = farWaiters.get(lock);
    if (waiting != null && waiting.remove(owner) && waiting.isEmpty()) {
      farWaiters.remove(lock);
      passedOver.remove(lock);
    }
  }

  /** A transfer ran, and its reply was heard. */
  void transferred(LockSide side) {
    if (side instanceof ReentrantProtocol lock) {
      if (passedOver.computeIfPresent(lock.key(), (k, n) -> n + 1) != null) {
        Coverage.hit("far waiter passed over");
      }
    }
  }

  /**
   * A release granted the lock directly to another client's waiter: a real release, which ends the
   * count of hand-offs the far waiters saw, as when the lock is found free (they must be refused
   * anew to count again; the new holder's client counts its own row from its first hand-off).
   */
  void granted(LockSide side) {
    if (side instanceof ReentrantProtocol lock) {
      passedOver.remove(lock.key());
      farWaiters.remove(lock.key());
    }
  }

  /** A rewind: what the far waiters' refusals wrote may be gone; they count from their next. */
  void rewound() {
    passedOver.clear();
    farWaiters.clear();
  }

  /**
   * Time passes for the locks nobody holds (the harness's clock, not the server's): a nominated
   * client's turn ends (the hash's PTTL falls to '#d'), a reservation runs out. Returns what
   * happened, or null when no lock was nominated or reserved.
   */
  String timePasses(Iterable<LockSide> sides) {
    StringBuilder did = new StringBuilder();
    for (LockSide side : sides) {
      if (!(side instanceof ReentrantProtocol lock)) {
        continue;
      }
      Map<String, String> hash = wire.redis.hgetall(lock.key());
      if (hash.keySet().stream().anyMatch(field -> !field.startsWith("#"))) {
        continue;
      }
      if (hash.get("#d") != null) {
        wire.pexpire(lock.key(), Long.parseLong(hash.get("#d")));
        did.append(did.length() > 0 ? "; " : "").append(lock.describe()).append("'s turn ends");
      } else if (hash.get("#r") != null) {
        wire.expireNow(lock.key());
        did.append(did.length() > 0 ? "; " : "")
            .append(lock.describe())
            .append("'s reservation runs out");
      }
    }
    return did.length() == 0 ? null : did.toString();
  }

  /** Checks both invariants for the reentrant locks; a real release ends the count. */
  void check(Iterable<LockSide> sides) {
    for (LockSide side : sides) {
      if (!(side instanceof ReentrantProtocol lock)) {
        continue;
      }
      Map<String, String> hash = wire.redis.hgetall(lock.key());
      boolean held = hash.keySet().stream().anyMatch(field -> !field.startsWith("#"));
      if (!held) {
        passedOver.remove(lock.key());
        farWaiters.remove(lock.key());
        if (!hash.isEmpty()) {
          Coverage.hit(
              "turn ("
                  + (hash.containsKey("#n") ? "#n" : hash.containsKey("#r") ? "#r" : "?")
                  + ")");
          turn(lock, hash);
        }
      }
      Integer passed = passedOver.get(lock.key());
      if (passed != null && passed > ROW) {
        throw new Violation(
            "passed-over",
            lock.describe()
                + ": "
                + passed
                + " hand-offs between one client's threads since "
                + farWaiters.get(lock.key())
                + " (another client's, or a multi-lock's) was refused, and no real release");
      }
    }
  }

  private void turn(ReentrantProtocol lock, Map<String, String> hash) {
    long pttl = wire.redis.pttl(lock.key());
    String nominee = hash.get("#n");
    String reserver = hash.get("#r");
    long keepsOut;
    if (nominee != null && hash.get("#d") != null) {
      keepsOut = pttl - Long.parseLong(hash.get("#d"));
      if (pttl <= Settings.NOMINATED_LOCK_MILLIS && keepsOut <= Settings.CROSS_CLIENT_TURN_MILLIS) {
        return;
      }
    } else if (reserver != null) {
      keepsOut = pttl;
      if (pttl <= Settings.CROSS_CLIENT_RESERVATION_MILLIS) {
        return;
      }
    } else {
      keepsOut = pttl;
    }
    throw new Violation(
        "turn",
        lock.describe()
            + ": nobody holds it, yet its hash "
            + hash
            + " (PTTL "
            + pttl
            + " ms) keeps a client out for "
            + keepsOut
            + " ms");
  }
}
