package dev.warden.cli;

import dev.warden.cli.ChaosChecker.Event;
import dev.warden.cli.ChaosChecker.Fault;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * The semaphores of a {@code warden chaos} run: never more holders at once than permits.
 *
 * <p><b>The leased semaphore</b>: holders whose release succeeded never outnumbered its permits.
 *
 * <p><b>The plain semaphore</b> is one semaphore per epoch ({@link ChaosEpochs}): a new one after
 * each fault that lost Redis's data, once the deployment settled. Each is judged at exactly its
 * permits from its announcement until the next fault that may have lost data starts: no more
 * holders at once than permits, counted from the moment a holder's acquisition returned to the
 * moment its release began (so surely holding). Before its announcement it did not exist, and no
 * fault since could have rewound it, so a permit too many there was created. After such a fault
 * starts it is no longer judged: a permit taken before a rewind and given back after it adds one (a
 * plain permit has no owner), which is the semaphore's documented nature, not a bug.
 *
 * <p>Not thread-safe; one instance checks one run.
 */
final class ChaosPermits {
  /**
   * How the plain semaphore was judged.
   *
   * @param epochs how many epochs' semaphores the run used
   * @param shareJudged the share of the run (0 to 1) during which the epoch in use was judged at
   *     exactly its permits, counted from its first acquisition
   */
  record Plain(int epochs, double shareJudged) {}

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
    checkAtMost(
        object, holds(eventsOf(object), /* onlyConfirmed= */ true), permits, Long.MAX_VALUE, "");
  }

  /**
   * Checks each epoch's plain semaphore at exactly {@code permits} from its announcement (in {@code
   * announced}, by epoch; epoch 0 exists from the start) until the next fault that may have lost
   * data; {@code runStart} and {@code runEnd} bound the run, for the share judged.
   */
  Plain checkPlain(int permits, Map<Integer, Long> announced, long runStart, long runEnd) {
    TreeMap<Integer, List<Event>> byEpoch = new TreeMap<>();
    for (Event event : events) {
      if (!event.fields().isEmpty()
          && (event.kind().equals("A") || event.kind().equals("P") || event.kind().equals("Q"))) {
        OptionalInt epoch = ChaosEpochs.epochOf(event.field(0));
        if (epoch.isPresent()) {
          byEpoch.computeIfAbsent(epoch.getAsInt(), e -> new ArrayList<>()).add(event);
        }
      }
    }
    long judged = 0;
    for (Map.Entry<Integer, List<Event>> epoch : byEpoch.entrySet()) {
      List<Event> used = epoch.getValue();
      String object = used.get(0).field(0);
      Long from =
          epoch.getKey() == 0 ? Long.valueOf(Long.MIN_VALUE) : announced.get(epoch.getKey());
      long firstCall = firstCall(used);
      if (from == null || firstCall < from) {
        violations.add(
            "the plain semaphore "
                + object
                + " was used "
                + (from == null
                    ? "in an epoch never announced"
                    : "before its epoch was announced"));
        continue;
      }
      long until = judgedUntil(from);
      checkAtMost(
          object,
          holds(used, /* onlyConfirmed= */ false),
          permits,
          until,
          ", with no fault that lost data since it was new");
      long start = Math.max(firstCall, runStart);
      long end = Math.min(until, runEnd);
      judged += Math.max(0, end - start);
    }
    return new Plain(byEpoch.size(), runEnd > runStart ? (double) judged / (runEnd - runStart) : 1);
  }

  /** The first fault after {@code from} that may have lost data starts, or never. */
  private long judgedUntil(long from) {
    long until = Long.MAX_VALUE;
    for (Fault fault : faults) {
      if (fault.losesData() && fault.end() > from) { // one under way at the announcement counts
        until = Math.min(until, Math.max(from, fault.start()));
      }
    }
    return until;
  }

  /**
   * Checks that {@code holds} of {@code object} never numbered more than {@code permits} at once
   * before {@code until}; a violation's message ends with {@code why}.
   */
  private void checkAtMost(
      String object, Map<String, long[]> holds, int permits, long until, String why) {
    TreeMap<Long, Integer> changes = new TreeMap<>();
    for (long[] hold : holds.values()) {
      if (hold[0] < until) {
        count(changes, new long[] {hold[0], Math.min(hold[1], until)});
      }
    }
    int inside = 0;
    for (Map.Entry<Long, Integer> change : changes.entrySet()) {
      inside += change.getValue();
      if (inside > permits) {
        violations.add(
            inside + " holders of " + object + " at once, above its " + permits + " permits" + why);
        return;
      }
    }
  }

  /** When the first acquisition among {@code used} began. */
  private static long firstCall(List<Event> used) {
    long first = Long.MAX_VALUE;
    for (Event event : used) {
      first = Math.min(first, event.at());
      if (event.kind().equals("A")) {
        first = Math.min(first, Long.parseLong(event.field(1)));
      }
    }
    return first;
  }

  private List<Event> eventsOf(String object) {
    return events.stream()
        .filter(event -> !event.fields().isEmpty() && event.field(0).equals(object))
        .toList();
  }

  /**
   * The holds in {@code objectEvents} (the events of one object): holder to {taken, given back (or
   * the end of time)}; with {@code onlyConfirmed}, only those whose release succeeded.
   */
  private static Map<String, long[]> holds(List<Event> objectEvents, boolean onlyConfirmed) {
    Map<String, long[]> holds = new LinkedHashMap<>();
    Map<String, Long> givenBack = new HashMap<>();
    Set<String> confirmed = new HashSet<>();
    for (Event event : objectEvents) {
      if (event.kind().equals("P")) {
        holds.put(event.field(1), new long[] {event.at(), Long.MAX_VALUE});
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
