package dev.warden.it.model;

import dev.warden.it.model.Views.Hold;
import dev.warden.it.model.Views.Parked;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The invariants checked after every step. Each throws a {@link Violation} naming itself. */
final class Invariants {
  /** Keys documented to live without an expiry (docs/operations.md, "Data in Redis"). */
  private static final Pattern NO_EXPIRY =
      Pattern.compile(
          "warden:\\{[^}]+}:(semaphore|leased-semaphore|leased-semaphore:leases|latch)");

  private Invariants() {}

  static void check(Model model) {
    Map<LockSide, Views> all = model.clients.views;
    for (Views v : all.values()) {
      LockSide side = v.side;
      Map<String, Integer> redis = side.holds();
      if (side.exclusive() && redis.size() > 1) {
        throw new Violation("exclusion", side.describe() + " has two owners in Redis: " + redis);
      }
      List<String> believers = new ArrayList<>();
      for (Map.Entry<String, Hold> entry : v.holds.entrySet()) {
        String owner = entry.getKey();
        Hold hold = entry.getValue();
        if (hold.count != hold.user) {
          throw new Violation(
              "user-count",
              side.describe()
                  + ": the client counts "
                  + hold.count
                  + " holds of "
                  + owner
                  + ", its user took "
                  + hold.user
                  + " (the user's balanced unlocks no longer end its hold)");
        }
        if (hold.disturbed) {
          continue;
        }
        if (hold.releaseId == null) {
          believers.add(owner); // a hold whose release is in doubt is being given up by its user
        }
        Integer count = redis.get(owner);
        if (count != null && count == hold.count + 1 && unsettled(model, v, owner)) {
          continue; // a re-entry whose reply was lost: its retry or its give-back settles it
        }
        if (hold.releaseId != null && (count == null ? hold.count == 1 : count == hold.count - 1)) {
          continue; // a release whose every reply was lost ran: its next run settles it
        }
        if (count == null || count != hold.count) {
          throw new Violation(
              "count",
              side.describe()
                  + ": Redis counts "
                  + (count == null ? "no hold" : count)
                  + " for "
                  + owner
                  + ", its client "
                  + hold.count
                  + " ("
                  + hold
                  + ")");
        }
      }
      if (side.exclusive() && believers.size() > 1) {
        throw new Violation(
            "double-grant",
            side.describe() + ": two owners hold it, no fault explains: " + believers);
      }
      orphans(model, v, redis);
      queues(v);
    }
    if (model.family == Model.Family.READ_WRITE) {
      readersAndWriter(model);
    }
  }

  /**
   * Whether something the owner's client sent may have changed its count unseen and is not settled
   * yet: an attempt whose reply was lost (parked, or a multi-lock's), or the give-back of an
   * acquisition that gave up, still on its way.
   */
  private static boolean unsettled(Model model, Views v, String owner) {
    Parked parked = v.parked.get(owner);
    Views.Late late = v.late.get(owner);
    return (parked != null && parked.inDoubt)
        || (late != null && late.inDoubt())
        || model.groupInDoubt(owner);
  }

  /** Every waiting acquisition keeps its entry in its object's queue (fair lock, writers). */
  private static void queues(Views v) {
    v.parked.forEach(
        (owner, p) -> {
          if (!p.inDoubt
              && !p.rewound
              && !p.grantUnheard
              && !v.side.queued(owner, p.acquisitionId)) {
            throw new Violation(
                "queue",
                v.side.describe()
                    + ": the waiting acquisition "
                    + p.acquisitionId
                    + " of "
                    + owner
                    + " lost its place in the queue, and no fault explains it");
          }
        });
  }

  /** A hold in Redis that no client knows, and no fault explains, never ends while relocked. */
  private static void orphans(Model model, Views v, Map<String, Integer> redis) {
    v.revived.keySet().retainAll(redis.keySet());
    for (String owner : redis.keySet()) {
      if (v.holds.containsKey(owner)) {
        continue;
      }
      if (unsettled(model, v, owner)) {
        continue; // its next attempt or its give-back settles it
      }
      Long until = v.revived.get(owner);
      if (until == null) {
        throw new Violation(
            "orphan",
            v.side.describe()
                + ": Redis holds "
                + redis.get(owner)
                + " for "
                + owner
                + ", which its client does not know of, and no fault explains it");
      }
      long ends = v.side.expiresAt(owner);
      if (until > 0 && ends > until) {
        throw new Violation(
            "revived-prolonged",
            v.side.describe()
                + ": the hold of "
                + owner
                + " that a fault brought back, which no client knows, now ends at "
                + ends
                + ", after its old end "
                + until);
      }
    }
  }

  /** Readers xor a writer (the writer itself may read): in Redis, and as the clients believe. */
  private static void readersAndWriter(Model model) {
    LockSide write = model.sides.get(0);
    LockSide read = model.sides.get(1);
    Set<String> writers = write.holds().keySet();
    Set<String> readers = new HashSet<>(read.holds().keySet());
    readers.removeAll(writers);
    if (!writers.isEmpty() && !readers.isEmpty()) {
      throw new Violation(
          "readers-and-writer", "Redis has writer " + writers + " and readers " + readers);
    }
    Set<String> believedWriters = undisturbed(model.clients.views(write));
    Set<String> believedReaders = undisturbed(model.clients.views(read));
    believedReaders.removeAll(believedWriters);
    if (!believedWriters.isEmpty() && !believedReaders.isEmpty()) {
      throw new Violation(
          "double-grant",
          "writer " + believedWriters + " and readers " + believedReaders + ", no fault explains");
    }
  }

  private static Set<String> undisturbed(Views v) {
    Set<String> owners = new HashSet<>();
    v.holds.forEach(
        (owner, hold) -> {
          if (!hold.disturbed && hold.releaseId == null) {
            owners.add(owner);
          }
        });
    return owners;
  }

  /** Every key has an expiry, except those documented to live without one. */
  static void ttl(Wire wire) {
    for (String key : wire.keys()) {
      Long pttl = wire.redis.pttl(key);
      if (pttl != null && pttl == -1 && !NO_EXPIRY.matcher(key).matches()) {
        throw new Violation("ttl", "key " + key + " has no expiry (" + wire.redis.type(key) + ")");
      }
    }
  }
}
