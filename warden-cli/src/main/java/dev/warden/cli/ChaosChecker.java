package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Proves from the logs of a {@code warden chaos} run what must hold whatever the faults did:
 *
 * <ul>
 *   <li><b>The protected resource.</b> Every lock's writes are replayed in time order into a model
 *       resource that accepts a write only if its fencing token is at least the highest accepted so
 *       far. Two sections of different holders whose writes were all accepted must not overlap, and
 *       no token may be issued to two holders.
 *   <li><b>Lost leases are reported.</b> A section with a rejected write lost its lease (another
 *       holder got the lock meanwhile): its holder must have been told ({@code leaseLost()}
 *       completed, or the release threw {@code LeaseExpiredException} or failed).
 *   <li><b>Permits.</b> Holders of the leased semaphore whose release succeeded never numbered more
 *       than its permits at once; holders of the plain semaphore never did either, until the first
 *       fault that loses Redis's data (a plain permit has no owner: once Redis forgets or rewinds
 *       the count, later releases add permits, and nobody can tell).
 *   <li><b>Waits</b> ended within their bound plus the contract's 500 ms, with a tolerance for a
 *       busy machine; a wait during which its own process was stopped (SIGSTOP) is exempt.
 *   <li><b>Leaks</b> reported by the workers ({@code K}) and unexpected exceptions ({@code U}).
 * </ul>
 *
 * <p>Not thread-safe; one instance checks one run.
 */
final class ChaosChecker {
  /** The contract: a timed wait returns within its wait plus 500 ms. */
  static final Duration WAIT_SLACK = Duration.ofMillis(500);

  /** Room for a 2-core machine shared with builds: GC, scheduling, JIT. */
  static final Duration TOLERANCE = Duration.ofMillis(1500);

  private static final Set<String> LOCKS =
      Set.of(ChaosWorker.LOCK, ChaosWorker.FAIR, ChaosWorker.RW);

  /** One logged event. */
  record Event(long at, String kind, List<String> fields, int worker) {
    String field(int index) {
      return fields.get(index);
    }
  }

  /** A fault from the injector's log. */
  record Fault(long start, long end, String kind, boolean losesData, int worker) {}

  /** The checker's result. */
  record Report(
      Map<String, Integer> faults,
      long acquisitions,
      long writesAccepted,
      long writesRejected,
      long longestWaitMillis,
      long leasesLost,
      long leasesLostReported,
      long waitsTimedOut,
      long errors,
      List<String> violations) {}

  private final List<Event> events = new ArrayList<>();
  private final List<Fault> faults = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();

  /** Reads the workers' logs and the fault log. */
  static ChaosChecker read(List<Path> workerLogs, Path faultLog) {
    ChaosChecker checker = new ChaosChecker();
    for (int i = 0; i < workerLogs.size(); i++) {
      for (String line : lines(workerLogs.get(i))) {
        checker.event(i + 1, line);
      }
    }
    for (String line : lines(faultLog)) {
      checker.event(0, line);
    }
    return checker;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Adds one line of worker {@code worker}'s log (0: the fault injector). */
  void event(int worker, String line) {
    if (line.isBlank()) {
      return;
    }
    String[] parts = line.strip().split(" ");
    List<String> fields = List.of(parts).subList(2, parts.length);
    Event event = new Event(Long.parseLong(parts[0]), parts[1], fields, worker);
    if (event.kind().equals("F")) {
      faults.add(
          new Fault(
              event.at(),
              Long.parseLong(fields.get(0)),
              fields.get(1),
              Boolean.parseBoolean(fields.get(2)),
              fields.get(3).equals("-") ? 0 : Integer.parseInt(fields.get(3))));
    } else {
      events.add(event);
    }
  }

  /** Checks everything and returns the figures and the violations. */
  Report check() {
    events.sort(Comparator.comparingLong(Event::at));
    long[] resource = checkResource();
    long[] lost = checkLostLeases();
    checkPermits(ChaosWorker.LEASED, ChaosWorker.LEASED_PERMITS, true);
    checkPermits(ChaosWorker.SEMAPHORE, ChaosWorker.SEMAPHORE_PERMITS, false);
    long[] waits = checkWaits();
    long errors = 0;
    for (Event event : events) {
      switch (event.kind()) {
        case "K" -> violations.add("worker " + event.worker() + " leaked: " + event.field(0));
        case "U" ->
            violations.add("worker " + event.worker() + " unexpected exception: " + event.field(1));
        case "E" -> errors++;
        default -> {}
      }
    }
    Map<String, Integer> byKind = new TreeMap<>();
    faults.forEach(fault -> byKind.merge(fault.kind(), 1, Integer::sum));
    long acquisitions =
        events.stream().filter(e -> e.kind().equals("A") && gotIt(e) && !isLatchWait(e)).count();
    return new Report(
        byKind,
        acquisitions,
        resource[0],
        resource[1],
        waits[0],
        lost[0],
        lost[1],
        waits[1],
        errors,
        List.copyOf(violations));
  }

  /** A section of one holder on one lock: its writes, whether all were accepted. */
  private static final class Section {
    final String holder;
    final long token;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    boolean rejected;

    Section(String holder, long token) {
      this.holder = holder;
      this.token = token;
    }
  }

  private final Map<String, Section> sections = new HashMap<>(); // by object + holder

  /** Replays the writes; returns {accepted, rejected}. */
  private long[] checkResource() {
    long accepted = 0;
    long rejected = 0;
    Map<String, Long> highest = new HashMap<>();
    Map<String, Map<Long, String>> tokenOwners = new HashMap<>();
    Set<String> reissued = new HashSet<>();
    for (Event event : events) {
      if (!event.kind().equals("W")) {
        continue;
      }
      String object = event.field(0);
      String holder = event.field(1);
      long token = Long.parseLong(event.field(2));
      String owner =
          tokenOwners.computeIfAbsent(object, o -> new HashMap<>()).putIfAbsent(token, holder);
      if (owner != null
          && !owner.equals(holder)
          && reissued.add(object + " " + token + " " + holder)) {
        violations.add(
            "token " + token + " of " + object + " was issued to " + owner + " and to " + holder);
      }
      Section section =
          sections.computeIfAbsent(object + " " + holder, k -> new Section(holder, token));
      section.first = Math.min(section.first, event.at());
      section.last = Math.max(section.last, event.at());
      long top = highest.getOrDefault(object, Long.MIN_VALUE);
      if (token >= top) {
        highest.put(object, token);
        accepted++;
      } else {
        section.rejected = true;
        rejected++;
      }
    }
    for (String object : LOCKS) {
      List<Section> acceptedSections = new ArrayList<>();
      sections.forEach(
          (key, section) -> {
            if (key.startsWith(object + " ") && !section.rejected) {
              acceptedSections.add(section);
            }
          });
      acceptedSections.sort(Comparator.comparingLong(s -> s.first));
      Section previous = null;
      for (Section section : acceptedSections) {
        if (previous != null && section.first < previous.last) {
          violations.add(
              "the resource of "
                  + object
                  + " accepted overlapping sections of "
                  + previous.holder
                  + " (token "
                  + previous.token
                  + ") and "
                  + section.holder
                  + " (token "
                  + section.token
                  + ")");
        }
        if (previous == null || section.last > previous.last) {
          previous = section;
        }
      }
    }
    return new long[] {accepted, rejected};
  }

  /** Returns {lost, reported}. */
  private long[] checkLostLeases() {
    Set<String> told = new HashSet<>();
    Set<String> releasedLost = new HashSet<>();
    for (Event event : events) {
      if (!event.kind().equals("L") && !event.kind().equals("R")) {
        continue;
      }
      String key = event.field(0) + " " + event.field(1);
      if (event.kind().equals("L") || (event.kind().equals("R") && !event.field(2).equals("ok"))) {
        told.add(key);
      }
      if (event.kind().equals("L") || (event.kind().equals("R") && event.field(2).equals("lost"))) {
        releasedLost.add(key);
      }
    }
    Set<String> lost = new HashSet<>(releasedLost);
    sections.forEach(
        (key, section) -> {
          if (section.rejected) {
            lost.add(key);
          }
        });
    long reported = 0;
    for (String key : lost) {
      if (told.contains(key)) {
        reported++;
      } else {
        violations.add("lost lease not reported to its holder: " + key);
      }
    }
    return new long[] {lost.size(), reported};
  }

  /** Checks that holders never exceeded {@code permits} at once. */
  private void checkPermits(String object, int permits, boolean onlyConfirmed) {
    Map<String, Long> taken = new LinkedHashMap<>();
    Map<String, Long> givenBack = new HashMap<>();
    Set<String> confirmed = new HashSet<>();
    for (Event event : events) {
      if (!event.field(0).equals(object)) {
        continue;
      }
      if (event.kind().equals("P")) {
        taken.put(event.field(1), event.at());
      } else if (event.kind().equals("Q")) {
        givenBack.put(event.field(1), event.at());
        if (event.field(2).equals("ok")) {
          confirmed.add(event.field(1));
        }
      }
    }
    // A plain permit has no owner: once Redis forgets or rewinds the count (a restart, a restart
    // from an older snapshot, a failover that loses writes), the releases of permits taken before
    // add permits the count no longer lacks, so the count is only known until the first such fault.
    long firstLoss =
        faults.stream()
            .filter(Fault::losesData)
            .mapToLong(Fault::start)
            .min()
            .orElse(Long.MAX_VALUE);
    TreeMap<Long, Integer> changes = new TreeMap<>();
    taken.forEach(
        (holder, from) -> {
          if (onlyConfirmed && !confirmed.contains(holder)) {
            return;
          }
          long to = givenBack.getOrDefault(holder, Long.MAX_VALUE);
          if (!onlyConfirmed) {
            if (from >= firstLoss) {
              return;
            }
            to = Math.min(to, firstLoss);
          }
          changes.merge(from, 1, Integer::sum);
          changes.merge(to, -1, Integer::sum);
        });
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

  /** Returns {longest wait ms, waits that timed out}. */
  private long[] checkWaits() {
    long longest = 0;
    long timedOut = 0;
    for (Event event : events) {
      if (!event.kind().equals("A")) {
        continue;
      }
      long start = Long.parseLong(event.field(1));
      long tookMillis = Duration.ofNanos(event.at() - start).toMillis();
      long bound = Long.parseLong(event.field(2)) + WAIT_SLACK.toMillis();
      if (event.field(3).equals("timeout")) {
        timedOut++;
      }
      if (stopped(event.worker(), start, event.at())) {
        continue;
      }
      longest = Math.max(longest, tookMillis);
      if (tookMillis > bound + TOLERANCE.toMillis()) {
        violations.add(
            "a wait on "
                + event.field(0)
                + " by worker "
                + event.worker()
                + " took "
                + tookMillis
                + " ms, above its bound of "
                + bound
                + " ms");
      }
    }
    return new long[] {longest, timedOut};
  }

  private boolean stopped(int worker, long from, long to) {
    for (Fault fault : faults) {
      if (fault.worker() == worker && fault.start() < to && fault.end() > from) {
        return true;
      }
    }
    return false;
  }

  private static boolean isLatchWait(Event event) {
    return event.kind().equals("A") && event.field(0).equals("chaos-latch");
  }

  private static boolean gotIt(Event event) {
    return event.field(3).equals("got");
  }
}
