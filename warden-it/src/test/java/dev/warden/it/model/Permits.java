package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.internal.base.Settings;
import dev.warden.it.model.Step.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The semaphore, the leased semaphore and the count-down latch, as {@code RedisSemaphore}, {@code
 * RedisLeasedSemaphore} and {@code RedisCountDownLatch} call their scripts: an operation marker per
 * change (the same for its retries), a waiter id per acquisition (its attempts and its leave send
 * the same), a random permit id per leased acquisition. The model keeps what each thread holds and
 * checks after every step that no permit was created or lost and no lease leaked.
 *
 * <p>The scripts run with an idle expiry ({@code synchronizerIdleExpiry}), longer than any sequence
 * lasts, so nothing expires by itself: the step {@link Op#IDLE} is the expiry (everybody stays away
 * longer than it, while the operations' markers, which live longer, stay) or a quarter of it
 * passes, and after every step the model checks that each key has an expiry, that the last call
 * that keeps a key alive set it to the full idle expiry, and that a leased semaphore outlives every
 * live lease.
 */
final class Permits {
  private static final String S = "warden:{S}:semaphore";
  private static final String P = "warden:{P}:leased-semaphore";
  private static final String LATCH = "warden:{D}:latch";
  private static final String MARKER_MILLIS = "15000";

  /** The scripts' idle expiry: longer than a sequence lasts; only {@link Op#IDLE} expires. */
  private static final long IDLE_MILLIS = 600_000;

  private static final String IDLE = Long.toString(IDLE_MILLIS);

  /**
   * updateLeaseTime's lease: longer than a lease acquired plus the idle expiry, so a renewal that
   * did not keep its semaphore alive would leave the lease outliving it.
   */
  private static final String RENEWED_LEASE = "900000";

  /** What the clock may drift between the model's reading and the script's, ms. */
  private static final long SLACK_MILLIS = 500;

  /** A waiting acquisition: its waiter (or permit) id, the permits it asks for, its doubt. */
  private record Waiting(String id, int permits, boolean inDoubt) {}

  private final Wire wire;
  private int ids;
  private long total;
  private long leasedTotal;
  private long latchCount;
  private final Map<String, List<Integer>> held = new LinkedHashMap<>();
  private final Map<String, Waiting> parked = new LinkedHashMap<>();
  private final Map<String, List<String>> leases = new LinkedHashMap<>();
  private final Set<String> disturbed = new HashSet<>();
  private final Set<String> revived = new HashSet<>();
  private Map<String, Wire.Saved> snapshot;
  // when a script that keeps the key alive for the full idle expiry last ran (System.nanoTime()
  // before the call), by key; as of the snapshot, for a rewind
  private final Map<String, Long> kept = new HashMap<>();
  private Map<String, Long> keptAtSnapshot = Map.of();

  Permits(Wire wire) {
    this.wire = wire;
  }

  static Step generate(Random random, int client, int thread, int variant) {
    int roll = random.nextInt(100);
    Op op =
        roll < 8
            ? Op.SET
            : roll < 35
                ? Op.ACQUIRE
                : roll < 60
                    ? Op.RELEASE
                    : roll < 68
                        ? Op.RETRY
                        : roll < 72
                            ? Op.GIVE_UP
                            : roll < 78
                                ? Op.RENEW
                                : roll < 82
                                    ? Op.EXPIRE
                                    : roll < 87
                                        ? Op.COUNT_DOWN
                                        : roll < 92 ? Op.IDLE : roll < 96 ? Op.SNAPSHOT : Op.REWIND;
    return new Step(op, random.nextInt(2), client, thread, variant);
  }

  private String newId() {
    return "id" + ++ids;
  }

  private String marker(String base, String id) {
    return base + ":op:" + id;
  }

  String apply(Step s) {
    String owner = s.owner();
    boolean leased = s.target() == 1;
    switch (s.op()) {
      case SET -> {
        return set(s);
      }
      case ACQUIRE -> {
        if (parked.containsKey(owner)) {
          return null;
        }
        return leased ? leasedAcquire(owner, s) : acquire(owner, s, newId());
      }
      case RETRY -> {
        Waiting w = parked.get(owner);
        if (w == null) {
          return null;
        }
        return w.permits() == 0 ? leasedAttempt(owner, w.id(), s) : attempt(owner, w, s);
      }
      case GIVE_UP -> {
        Waiting w = parked.remove(owner);
        if (w == null) {
          return null;
        }
        if (w.permits() == 0) {
          giveBackLease(w.id());
        } else {
          leave(w);
        }
        return owner + " (parked) gives up";
      }
      case RELEASE -> {
        return leased ? leasedRelease(owner, s) : release(owner, s);
      }
      case RENEW -> {
        List<String> mine = leases.getOrDefault(owner, List.of());
        if (mine.isEmpty()) {
          return null;
        }
        String id = mine.get(s.variant() % mine.size());
        List<Object> reply =
            wire.run("leased-semaphore-renew", List.of(P + ":leases", P), id, RENEWED_LEASE, IDLE);
        if (number(reply, 0) != 1) {
          mine.remove(id); // updateLeaseTime is false: the lease ran out
        }
        return owner + " updateLeaseTime(" + id + ")";
      }
      case EXPIRE -> {
        List<String> mine = leases.getOrDefault(owner, List.of());
        if (mine.isEmpty()) {
          return null;
        }
        String id = mine.get(s.variant() % mine.size());
        wire.endDeadline(P + ":leases", id);
        disturbed.add(id);
        return "the lease of permit " + id + " runs out";
      }
      case COUNT_DOWN -> {
        if (s.variant() % 3 == 1) {
          return look();
        }
        String marker = marker(LATCH, newId());
        kept.put(LATCH, System.nanoTime());
        List<Object> reply =
            wire.run(
                "latch-count-down",
                List.of(LATCH, marker),
                LATCH + ":released",
                MARKER_MILLIS,
                IDLE);
        if (s.variant() % 3 == 0) {
          reply =
              wire.run(
                  "latch-count-down",
                  List.of(LATCH, marker),
                  LATCH + ":released",
                  MARKER_MILLIS,
                  IDLE);
        }
        if (number(reply, 0) == 1 && latchCount > 0) {
          latchCount--;
        }
        return "countDown()" + (s.variant() % 3 == 0 ? " [LOST_RETRY]" : "");
      }
      case IDLE -> {
        return s.variant() % 2 == 0 ? age() : idle();
      }
      case SNAPSHOT -> {
        snapshot = wire.snapshot();
        keptAtSnapshot = Map.copyOf(kept);
        return "SAVE (snapshot)";
      }
      case REWIND -> {
        if (snapshot == null) {
          return null;
        }
        rewind();
        return "restart from the snapshot (writes since are lost)";
      }
      default -> {
        return null;
      }
    }
  }

  private String set(Step s) {
    int amount = 1 + s.variant() % 3;
    String id = newId();
    if (s.target() == 0) {
      List<Object> reply = semaphore("set", amount, "", marker(S, id));
      if (number(reply, 0) == 1 && number(reply, 1) == amount) {
        total += amount;
      }
      return "semaphore.trySetPermits(" + amount + ")";
    }
    if (s.variant() % 2 == 0) {
      long at = System.nanoTime();
      List<Object> reply =
          wire.run(
              "latch-set",
              List.of(LATCH, marker(LATCH, id)),
              Integer.toString(amount),
              MARKER_MILLIS,
              IDLE);
      if (number(reply, 0) == 1) {
        latchCount = amount;
        kept.put(LATCH, at);
      }
      return "latch.trySetCount(" + amount + ")";
    }
    List<Object> reply =
        wire.run(
            "leased-semaphore-add",
            List.of(P, marker(P, id), P + ":leases"),
            "set",
            Integer.toString(amount),
            MARKER_MILLIS,
            P + ":released",
            IDLE);
    if (number(reply, 0) == 1) {
      leasedTotal += amount;
    }
    return "leasedSemaphore.trySetPermits(" + amount + ")";
  }

  private List<Object> semaphore(String op, long amount, String entry, String marker) {
    kept.put(S, System.nanoTime()); // every call keeps the semaphore alive
    return wire.run(
        "semaphore-update",
        List.of(S, S + ":queue", S + ":deadlines", marker),
        op,
        Long.toString(amount),
        entry,
        Long.toString(Settings.SEMAPHORE_ENTRY_LEASE_MILLIS),
        MARKER_MILLIS,
        S + ":released",
        IDLE);
  }

  private String acquire(String owner, Step s, String waiterId) {
    int permits = 1 + s.variant() % 2;
    return attempt(owner, new Waiting(waiterId, permits, false), s);
  }

  private String attempt(String owner, Waiting w, Step s) {
    boolean waits = s.willWait() || parked.containsKey(owner);
    String entry = w.permits() + ":" + w.id();
    String marker = marker(S, w.id());
    Clients.Fault fault = s.acquireFault();
    List<Object> reply = semaphore(waits ? "wait" : "take", w.permits(), entry, marker);
    String did = owner + " semaphore.acquire(" + w.permits() + ")" + (waits ? "" : " try");
    if (fault == Clients.Fault.LOST_RETRY) {
      reply = semaphore(waits ? "wait" : "take", w.permits(), entry, marker);
    } else if (fault == Clients.Fault.LOST_PARK && waits) {
      parked.put(owner, new Waiting(w.id(), w.permits(), true));
      return did + " [LOST_PARK]";
    } else if (fault != Clients.Fault.NONE && fault != Clients.Fault.ABANDON) {
      parked.remove(owner);
      leave(w); // giveBackInDoubt, then the leave of finished()
      return did + " [" + fault + "]";
    }
    if (number(reply, 0) != 1) {
      if (waits) {
        parked.put(owner, w);
      }
      return did + " refused";
    }
    parked.remove(owner);
    if (fault == Clients.Fault.ABANDON) {
      leave(w); // rollback
      return did + " [ABANDON]";
    }
    held.computeIfAbsent(owner, o -> new ArrayList<>()).add(w.permits());
    return did + fault(fault);
  }

  private void leave(Waiting w) {
    semaphore("leave", 0, w.permits() + ":" + w.id(), marker(S, w.id()));
  }

  private String release(String owner, Step s) {
    List<Integer> mine = held.getOrDefault(owner, List.of());
    if (mine.isEmpty()) {
      return null;
    }
    int permits = mine.remove(0);
    String marker = marker(S, newId());
    semaphore("add", permits, "", marker);
    if (s.releaseFault() == Clients.Fault.LOST_RETRY) {
      semaphore("add", permits, "", marker);
    }
    return owner + " semaphore.release(" + permits + ")" + fault(s.releaseFault());
  }

  private String leasedAcquire(String owner, Step s) {
    return leasedAttempt(owner, newId(), s);
  }

  private String leasedAttempt(String owner, String id, Step s) {
    boolean waits = s.willWait() || parked.containsKey(owner);
    Clients.Fault fault = s.acquireFault();
    List<Object> reply = leasedCall(id, waits);
    String did = owner + " leasedSemaphore.acquire() " + id + (waits ? "" : " try");
    if (fault == Clients.Fault.LOST_RETRY) {
      reply = leasedCall(id, waits);
    } else if (fault == Clients.Fault.LOST_PARK && waits) {
      parked.put(owner, new Waiting(id, 0, true));
      return did + " [LOST_PARK]";
    } else if (fault != Clients.Fault.NONE && fault != Clients.Fault.ABANDON) {
      parked.remove(owner);
      giveBackLease(id);
      return did + " [" + fault + "]";
    }
    if (number(reply, 0) != 1) {
      if (waits) {
        parked.put(
            owner, new Waiting(id, 0, parked.containsKey(owner) && parked.get(owner).inDoubt()));
      }
      return did + " refused";
    }
    parked.remove(owner);
    if (fault == Clients.Fault.ABANDON) {
      giveBackLease(id);
      return did + " [ABANDON]";
    }
    leases.computeIfAbsent(owner, o -> new ArrayList<>()).add(id);
    return did + fault(fault);
  }

  private List<Object> leasedCall(String id, boolean waits) {
    kept.put(P, System.nanoTime()); // every acquisition's call keeps the semaphore alive
    kept.put(P + ":leases", System.nanoTime());
    return wire.run(
        "leased-semaphore-acquire",
        List.of(P, P + ":leases"),
        id,
        "60000",
        waits ? "1" : "0",
        "0",
        Long.toString(Settings.UNSET_MARK_MILLIS),
        P + ":released",
        IDLE);
  }

  /** An acquisition's give-back of a permit, sent once: under a marker of its own. */
  private List<Object> giveBackLease(String id) {
    return giveBackLease(id, marker(P, newId()));
  }

  /** leased-semaphore-release; {@code marker} is the same for every run of one release. */
  private List<Object> giveBackLease(String id, String marker) {
    return wire.run(
        "leased-semaphore-release",
        List.of(P, P + ":leases", marker),
        id,
        P + ":released",
        MARKER_MILLIS,
        IDLE);
  }

  private String leasedRelease(String owner, Step s) {
    List<String> mine = leases.getOrDefault(owner, List.of());
    if (mine.isEmpty()) {
      return null;
    }
    String id = mine.remove(0);
    String marker = marker(P, newId()); // tryRelease: one marker for every run of this release
    boolean live = liveLeases().contains(id);
    long released = number(giveBackLease(id, marker), 0);
    if (s.releaseFault() == Clients.Fault.LOST_RETRY) {
      released = number(giveBackLease(id, marker), 0);
    }
    if ((released == 1) != live) {
      throw new Violation(
          "release-verdict",
          "leased semaphore: the release of permit "
              + id
              + (live
                  ? " reports it not leased, though it was"
                  : " counts as done, though its lease had ended"));
    }
    return owner + " leasedSemaphore.release(" + id + ")" + fault(s.releaseFault());
  }

  /** An awaiter's look at the latch: it finds it open exactly when its count is zero. */
  private String look() {
    kept.put(LATCH, System.nanoTime());
    List<Object> reply = wire.run("latch-await", List.of(LATCH), "", IDLE);
    if ((number(reply, 0) == 1) != (latchCount == 0)) {
      throw new Violation(
          "latch",
          "an awaiter finds the latch "
              + (latchCount == 0 ? "closed" : "open")
              + " at count "
              + latchCount);
    }
    return "latch.await() looks";
  }

  /**
   * A quarter of the idle expiry passes for the semaphore and the latch (not for the leased
   * semaphore, whose leases would have to age with it), so that a call that should keep one alive
   * and does not leaves it short of the full expiry.
   */
  private String age() {
    long quarter = IDLE_MILLIS / 4;
    for (String key : List.of(S, LATCH)) {
      long pttl = wire.redis.pttl(key);
      if (pttl > quarter + SLACK_MILLIS) {
        wire.pexpire(key, pttl - quarter);
        kept.computeIfPresent(key, (k, at) -> at - quarter * 1_000_000);
      }
    }
    return "a quarter of the idle expiry passes";
  }

  /**
   * Nobody uses the objects for longer than the idle expiry, while the operations' markers (which
   * live longer) stay: the semaphore and the latch expire (a semaphore's permits taken or in doubt
   * stay with their holders, its free ones are gone: as if never set); the leased semaphore expires
   * only if no lease is live (it lives until its last lease ends plus the expiry).
   */
  private String idle() {
    StringBuilder gone = new StringBuilder();
    if (wire.redis.exists(S) == 1) {
      wire.expireNow(S);
      gone.append(" semaphore");
    }
    total = heldPermits() + doubt();
    if (wire.redis.exists(LATCH) == 1) {
      wire.expireNow(LATCH);
      gone.append(" latch");
    }
    latchCount = 0;
    if (liveLeases().isEmpty() && wire.redis.exists(P, P + ":leases") > 0) {
      wire.expireNow(P);
      wire.expireNow(P + ":leases");
      leasedTotal = 0;
      gone.append(" leased-semaphore");
    }
    return "idle past the expiry:" + (gone.length() == 0 ? " nothing expires" : gone + " expire");
  }

  /** The idle expiry's invariants (see the class comment). */
  private void checkExpiry() {
    long now = wire.serverMillis();
    long lastLeaseEnds = now;
    for (io.lettuce.core.ScoredValue<String> lease :
        wire.redis.zrangebyscoreWithScores(
            P + ":leases", io.lettuce.core.Range.create(now + 1, Double.MAX_VALUE))) {
      lastLeaseEnds = Math.max(lastLeaseEnds, (long) lease.getScore());
    }
    for (String key : List.of(S, LATCH, P, P + ":leases")) {
      long pttl = wire.redis.pttl(key);
      if (pttl == -2) {
        continue;
      }
      if (pttl == -1) {
        throw new Violation("idle", "key " + key + " has no expiry under an idle expiry");
      }
      Long at = kept.get(key);
      long since = at == null ? Long.MAX_VALUE : (System.nanoTime() - at) / 1_000_000;
      if (at != null && pttl < IDLE_MILLIS - since - SLACK_MILLIS) {
        throw new Violation(
            "idle",
            "key "
                + key
                + " expires in "
                + pttl
                + " ms, "
                + since
                + " ms after a call that keeps it alive for "
                + IDLE_MILLIS);
      }
      if ((key.equals(S) || key.equals(LATCH)) && pttl > IDLE_MILLIS) {
        throw new Violation("idle", "key " + key + " expires in " + pttl + " ms, past the expiry");
      }
      if (key.startsWith(P) && pttl < lastLeaseEnds - now) {
        throw new Violation(
            "idle",
            "key "
                + key
                + " expires in "
                + pttl
                + " ms, before a live lease ends ("
                + (lastLeaseEnds - now)
                + " ms)");
      }
    }
  }

  private static String fault(Clients.Fault fault) {
    return fault == Clients.Fault.NONE ? "" : " [" + fault + "]";
  }

  /** After a restart from the snapshot: the counts start again from what Redis now has. */
  private void rewind() {
    wire.restore(snapshot);
    kept.clear();
    kept.putAll(keptAtSnapshot); // the keys came back with the expiries they had then
    total = free() + heldPermits() + doubt();
    leasedTotal = leasedFree() + wire.redis.zcard(P + ":leases");
    leases.values().forEach(disturbed::addAll);
    revived.clear();
    revived.addAll(liveLeases());
    String count = wire.redis.hget(LATCH, "count");
    latchCount = count == null ? 0 : Long.parseLong(count);
  }

  private long free() {
    String free = wire.redis.get(S);
    return free == null ? 0 : Long.parseLong(free);
  }

  private long leasedFree() {
    String free = wire.redis.hget(P, "permits");
    return free == null ? 0 : Long.parseLong(free);
  }

  private long heldPermits() {
    return held.values().stream().flatMap(List::stream).mapToLong(Integer::longValue).sum();
  }

  private Set<String> liveLeases() {
    long now = wire.serverMillis();
    Set<String> live = new HashSet<>();
    wire.redis
        .zrangebyscoreWithScores(
            P + ":leases", io.lettuce.core.Range.create(now + 1, Double.MAX_VALUE))
        .forEach(v -> live.add(v.getValue()));
    return live;
  }

  /**
   * Permits that acquisitions in doubt took (their markers say), which their clients never heard
   * of.
   */
  private long doubt() {
    long doubt = 0;
    for (Waiting w : parked.values()) {
      if (w.inDoubt() && w.permits() > 0) {
        String taken = wire.redis.get(marker(S, w.id()));
        doubt += taken == null ? 0 : Long.parseLong(taken);
      }
    }
    return doubt;
  }

  void check() {
    checkExpiry();
    long doubt = doubt();
    Set<String> pending = new HashSet<>();
    parked.values().forEach(w -> pending.add(w.id()));
    long free = free();
    if (free + heldPermits() + doubt != total) {
      throw new Violation(
          "permits",
          "semaphore: "
              + free
              + " free + "
              + heldPermits()
              + " held + "
              + doubt
              + " in doubt, of "
              + total);
    }
    long leasedFree = leasedFree();
    long leased = wire.redis.zcard(P + ":leases");
    if (leasedFree + leased != leasedTotal) {
      throw new Violation(
          "permits",
          "leased semaphore: " + leasedFree + " free + " + leased + " leased, of " + leasedTotal);
    }
    Set<String> known = new HashSet<>();
    leases.values().forEach(known::addAll);
    revived.retainAll(liveLeases());
    for (String id : liveLeases()) {
      if (!known.contains(id) && !pending.contains(id) && !revived.contains(id)) {
        throw new Violation(
            "orphan", "leased semaphore: permit " + id + " is leased, no client knows it");
      }
    }
    String count = wire.redis.hget(LATCH, "count");
    if ((count == null ? 0 : Long.parseLong(count)) != latchCount) {
      throw new Violation("latch", "latch counts " + count + ", " + latchCount + " expected");
    }
  }
}
