package dev.warden.cli;

import dev.warden.cli.ChaosChecker.Event;
import dev.warden.cli.ChaosChecker.Fault;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The semaphores of a {@code warden chaos} run: never more holders at once than permits.
 *
 * <p><b>The leased semaphore</b>: holders whose release succeeded never outnumbered its permits.
 *
 * <p><b>The plain semaphore</b> is judged over the whole run, against the permits it can have had.
 * A plain permit has no owner, so a fault that loses Redis's data gives it more: a permit held when
 * the data is lost (and taken after the point the count goes back to) is one the emptied or rewound
 * count no longer lacks, and its release adds one more. So each such fault raises the permits the
 * semaphore can have had by at most the most permits held at once during the fault (counted from
 * each acquisition's call, since a take can land before its caller hears of it), on top of the most
 * it could have had since Redis was last emptied (a rewind brings back a count of that time), or on
 * top of its own permits when the fault emptied Redis (the next {@code trySetPermits} sets them
 * again). That is an upper bound: a release lost with the data only lowers the count.
 *
 * <p>Not thread-safe; one instance checks one run.
 */
final class ChaosPermits {
  /**
   * How the plain semaphore was judged.
   *
   * @param mostPermits the most permits it could have had, after faults that lost data
   * @param shareAtItsPermits the share of the run (0 to 1) during which it could have had only its
   *     own permits
   */
  record Plain(int mostPermits, double shareAtItsPermits) {}

  private final List<Event> events;
  private final List<Fault> faults;
  private final List<String> violations;

  ChaosPermits(List<Event> events, List<Fault> faults, List<String> violations) {
    this.events = events;
    this.faults = faults;
    this.violations = violations;
  }

  /** Checks the leased semaphore {@code object}: its confirmed holders never exceeded permits. */
  void checkLeased(String object, int permits) {
    Map<String, long[]> holds = holds(object, /* onlyConfirmed= */ true);
    TreeMap<Long, Integer> changes = new TreeMap<>();
    holds.values().forEach(hold -> count(changes, hold));
    int inside = 0;
    for (Map.Entry<Long, Integer> change : changes.entrySet()) {
      inside += change.getValue();
      if (inside > permits) {
        violations.add(
            inside + " holders of " + object + " at once, above its " + permits + " permits");
        return;
      }
    }
  }

  /**
   * Checks the plain semaphore {@code object} over the whole run, from {@code runStart} to {@code
   * runEnd}, against the permits it can have had (see the class comment).
   */
  Plain checkPlain(String object, int permits, long runStart, long runEnd) {
    Map<String, long[]> holds = holds(object, /* onlyConfirmed= */ false);
    TreeMap<Long, Integer> possibly = new TreeMap<>(); // holders from their acquisition's call
    holds.values().forEach(hold -> count(possibly, new long[] {hold[2], hold[1]}));
    TreeMap<Long, Integer> capacity = new TreeMap<>(); // from each instant on
    capacity.put(Long.MIN_VALUE, permits);
    int mostSinceEmptied = permits;
    int most = permits;
    for (Fault fault : faults) { // in the order they were injected
      if (!fault.losesData()) {
        continue;
      }
      boolean emptied = fault.data() == ChaosDeployment.Data.EMPTIED;
      int current = (emptied ? permits : mostSinceEmptied) + most(possibly, fault);
      mostSinceEmptied = emptied ? current : Math.max(mostSinceEmptied, current);
      most = Math.max(most, current);
      capacity.put(fault.start(), current);
    }
    TreeMap<Long, Integer> changes = new TreeMap<>();
    holds.values().forEach(hold -> count(changes, hold));
    int inside = 0;
    for (Map.Entry<Long, Integer> change : changes.entrySet()) {
      inside += change.getValue();
      int allowed = capacity.floorEntry(change.getKey()).getValue();
      if (inside > allowed) {
        violations.add(
            inside
                + " holders of "
                + object
                + " at once, above "
                + (allowed == permits
                    ? "its " + permits + " permits"
                    : "the "
                        + allowed
                        + " permits it can have had after faults that lost data (its own: "
                        + permits
                        + ")"));
        break;
      }
    }
    return new Plain(most, shareAt(capacity, permits, runStart, runEnd));
  }

  /** The most holders at once at some instant of the fault, from a holder count's changes. */
  private static int most(NavigableMap<Long, Integer> changes, Fault fault) {
    int inside = 0;
    for (int change : changes.headMap(fault.start(), true).values()) {
      inside += change;
    }
    int most = inside;
    for (int change : changes.subMap(fault.start(), false, fault.end(), true).values()) {
      inside += change;
      most = Math.max(most, inside);
    }
    return most;
  }

  /** The share of [start, end] during which {@code capacity} was {@code permits}. */
  private static double shareAt(
      NavigableMap<Long, Integer> capacity, int permits, long start, long end) {
    if (end <= start) {
      return 1;
    }
    long at = 0;
    List<Map.Entry<Long, Integer>> steps = new ArrayList<>(capacity.entrySet());
    for (int i = 0; i < steps.size(); i++) {
      long from = Math.max(start, steps.get(i).getKey());
      long to = i + 1 < steps.size() ? Math.min(end, steps.get(i + 1).getKey()) : end;
      if (to > from && steps.get(i).getValue() == permits) {
        at += to - from;
      }
    }
    return (double) at / (end - start);
  }

  /**
   * The holds of {@code object}: holder to {taken, given back (or the end of time), its
   * acquisition's call (or when taken)}; with {@code onlyConfirmed}, only those whose release
   * succeeded.
   */
  private Map<String, long[]> holds(String object, boolean onlyConfirmed) {
    Map<String, long[]> holds = new LinkedHashMap<>();
    Map<String, Long> givenBack = new HashMap<>();
    Map<String, Long> calls = new HashMap<>();
    Set<String> confirmed = new HashSet<>();
    for (Event event : events) {
      if (event.fields().isEmpty() || !event.field(0).equals(object)) {
        continue;
      }
      if (event.kind().equals("A") && event.fields().size() > 4) {
        calls.put(event.field(4), Long.parseLong(event.field(1)));
      } else if (event.kind().equals("P")) {
        long call = Math.min(event.at(), calls.getOrDefault(event.field(1), event.at()));
        holds.put(event.field(1), new long[] {event.at(), Long.MAX_VALUE, call});
      } else if (event.kind().equals("Q")) {
        givenBack.put(event.field(1), event.at());
        if (event.field(2).equals("ok")) {
          confirmed.add(event.field(1));
        }
      }
    }
    holds.entrySet().removeIf(hold -> onlyConfirmed && !confirmed.contains(hold.getKey()));
    holds.forEach((holder, hold) -> hold[1] = givenBack.getOrDefault(holder, Long.MAX_VALUE));
    return holds;
  }

  private static void count(Map<Long, Integer> changes, long[] hold) {
    changes.merge(hold[0], 1, Integer::sum);
    changes.merge(hold[1], -1, Integer::sum);
  }
}
