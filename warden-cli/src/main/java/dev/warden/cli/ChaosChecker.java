package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Proves from the logs of a {@code warden chaos} run what must hold whatever the faults did:
 *
 * <ul>
 *   <li><b>Mutual exclusion, fenced.</b> Every lock's sections are replayed against a protected
 *       resource that checks fencing tokens: two sections of one lock never held it at once
 *       (readers excepted), and no token went to two holders ({@link ChaosSections}).
 *   <li><b>Lost leases are explained and reported.</b> A section that lost its lease (another
 *       holder got in, or its holder was told) must overlap a fault that can take a lease from it:
 *       one that lost Redis's data or stopped Redis past the lease, anywhere; a stop, partition or
 *       cut of its own worker ({@link Fault#explains}); or else a pause of its own worker long
 *       enough to cost a lease, by the worker's own evidence ({@link ChaosPauses}). Anything else
 *       is "two holders without a fault", "a reader inside a writer's section without a fault" or
 *       "a lease lost without a fault". Its holder must have been told: {@code leaseLost()}
 *       completed, or the release said so; a release that failed is no report.
 *   <li><b>Permits.</b> Holders of the leased semaphore whose release succeeded never numbered more
 *       than its permits at once; holders of each epoch's plain semaphore never numbered more than
 *       its permits until a fault that may have lost data ({@link ChaosPermits}).
 *   <li><b>Waits</b> ended within their bound plus the contract's 500 ms, with a tolerance for a
 *       busy machine; a wait during which its own process was stopped (SIGSTOP) is exempt, and the
 *       time its process was paused does not count.
 *   <li><b>Leaks</b> reported by the workers ({@code K}), unexpected exceptions ({@code U}), and
 *       keys left in Redis after the run ({@link #leftoverKeys}).
 * </ul>
 *
 * <p>Not thread-safe; one instance checks one run.
 */
final class ChaosChecker {
  /** The contract: a timed wait returns within its wait plus 500 ms. */
  static final Duration WAIT_SLACK = Duration.ofMillis(500);

  /** Room for a 2-core machine shared with builds: GC, scheduling, JIT. */
  static final Duration TOLERANCE = Duration.ofMillis(1500);

  /**
   * How long after its end a fault still explains a lost lease: one lease. What a fault took away
   * or brought back (a hold on a demoted master, a client still on its way to the new one) is
   * settled by then.
   */
  static final Duration AFTERMATH = ChaosWorker.WATCHDOG;

  /**
   * Faults of the whole deployment that keep Redis's data but stop every client's renewals past the
   * lease: a frozen server, a master cut off from its clients.
   */
  static final Set<String> STOPS_SERVICE = Set.of("freeze", "partition-master");

  /**
   * What Warden keeps in Redis by design after a run: fence counters, semaphore counts and the
   * on-Redis format's marker (written when a {@code Warden} is built).
   */
  private static final Pattern LEFT_BY_DESIGN =
      Pattern.compile(
          ".*:fence|warden:\\{chaos-sem-[0-9]+\\}:semaphore"
              + "|warden:\\{chaos-leased\\}:leased-semaphore"
              + "|warden:\\{warden-format\\}:format");

  /** One logged event. */
  record Event(long at, String kind, List<String> fields, int worker) {
    String field(int index) {
      return fields.get(index);
    }
  }

  /**
   * A fault from the injector's log.
   *
   * @param worker the worker it hit (from 1), or 0 when it hit the deployment
   */
  record Fault(long start, long end, String kind, ChaosDeployment.Data data, int worker) {
    boolean losesData() {
      return data != ChaosDeployment.Data.KEPT;
    }

    /**
     * Whether it can have taken the lease of a holder in worker {@code holderWorker} that held from
     * {@code from} to {@code to}: a fault of that worker, or of the whole deployment that lost data
     * or stopped service ({@link #STOPS_SERVICE}), during the hold or up to {@link #AFTERMATH}
     * before it; a pause of that worker ({@link ChaosPauses}) only during the hold: once it is
     * over, the lease keeper renews at once, and a later acquisition takes a fresh lease.
     */
    boolean explains(int holderWorker, long from, long to) {
      boolean reaches =
          worker == 0 ? losesData() || STOPS_SERVICE.contains(kind) : worker == holderWorker;
      long aftermath = kind.equals(ChaosPauses.KIND) ? 0 : AFTERMATH.toNanos();
      return reaches && start <= to && end + aftermath >= from;
    }
  }

  /** The checker's result; {@code origin} is the run's first instant. */
  record Report(
      Map<String, Integer> faults,
      long origin,
      long acquisitions,
      ChaosSections.Figures sections,
      ChaosPauses.Figures pauses,
      ChaosPermits.Plain semaphore,
      long longestWaitMillis,
      long waitsTimedOut,
      long errors,
      List<String> violations) {
    long writesAccepted() {
      return sections.writesAccepted();
    }

    long writesRejected() {
      return sections.writesRejected();
    }

    long leasesLost() {
      return sections.lost();
    }

    long leasesLostReported() {
      return sections.reported();
    }
  }

  private final List<Event> events = new ArrayList<>();
  private final List<Fault> faults = new ArrayList<>();
  private final Map<Integer, Long> epochs = new HashMap<>(); // announced, by number
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
              ChaosDeployment.Data.parse(fields.get(2)),
              fields.get(3).equals("-") ? 0 : Integer.parseInt(fields.get(3))));
    } else if (event.kind().equals("N")) {
      epochs.put(Integer.parseInt(fields.get(0)), event.at());
    } else {
      events.add(event);
    }
  }

  /**
   * Returns the violations of the keys left in Redis after a run, once leases have ended: any key
   * but those Warden keeps by design (fence counters, semaphore counts).
   */
  static List<String> leftoverKeys(Collection<String> keys) {
    List<String> left =
        keys.stream().filter(key -> !LEFT_BY_DESIGN.matcher(key).matches()).sorted().toList();
    return left.isEmpty() ? List.of() : List.of("keys left in Redis: " + left);
  }

  /** Checks everything and returns the figures and the violations. */
  Report check() {
    events.sort(Comparator.comparingLong(Event::at));
    faults.sort(Comparator.comparingLong(Fault::start));
    long runStart = events.isEmpty() ? 0 : events.get(0).at();
    long runEnd = events.isEmpty() ? 0 : events.get(events.size() - 1).at();
    ChaosPauses pauses = new ChaosPauses(events, faults);
    ChaosSections.Figures sections =
        new ChaosSections(faults, pauses.asFaults(), violations, runStart).replay(events);
    ChaosPermits permits = new ChaosPermits(events, faults, violations);
    permits.checkLeased(ChaosWorker.LEASED, ChaosWorker.LEASED_PERMITS);
    ChaosPermits.Plain semaphore =
        permits.checkPlain(ChaosWorker.SEMAPHORE_PERMITS, epochs, runStart, runEnd);
    long[] waits = checkWaits(pauses);
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
        runStart,
        acquisitions,
        sections,
        pauses.figures(),
        semaphore,
        waits[0],
        waits[1],
        errors,
        List.copyOf(violations));
  }

  /**
   * Returns {longest wait ms, waits that timed out}; the time the waiter's process was paused
   * ({@code pauses}) does not count.
   */
  private long[] checkWaits(ChaosPauses pauses) {
    long longest = 0;
    long timedOut = 0;
    for (Event event : events) {
      if (!event.kind().equals("A")) {
        continue;
      }
      long start = Long.parseLong(event.field(1));
      long tookMillis =
          Duration.ofNanos(
                  event.at() - start - pauses.pausedNanos(event.worker(), start, event.at()))
              .toMillis();
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

  /** Whether the worker's process was stopped (SIGSTOP) at some time between from and to. */
  private boolean stopped(int worker, long from, long to) {
    for (Fault fault : faults) {
      if (fault.worker() == worker
          && fault.kind().equals("stop-worker")
          && fault.start() < to
          && fault.end() > from) {
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
