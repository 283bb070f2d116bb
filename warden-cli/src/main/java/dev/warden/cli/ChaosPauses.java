package dev.warden.cli;

import dev.warden.cli.ChaosChecker.Event;
import dev.warden.cli.ChaosChecker.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The pauses of the worker processes of a {@code warden chaos} run, from their own evidence ({@code
 * H} lines: {@link ChaosHeartbeat}): a paused worker is a fault, not a Warden bug.
 *
 * <p>A worker's evidence is merged into pauses (a late heartbeat and the GC that caused it are one
 * pause). A pause of at least {@link #RENEWAL_SLACK} is a fault of kind {@link #KIND} that can take
 * the lease of a holder in that worker during it ({@link #asFaults}): the lease keeper renews every
 * third of the lease, so a hold's lease runs out only if nothing renewed it for the lease's last
 * two thirds: a pause shorter than that cannot cost a lease by itself, one that long can. A pause
 * within a stop of that worker (SIGSTOP, an injected fault) is that fault's, not counted again.
 *
 * <p>Not thread-safe; one instance reads one run.
 */
final class ChaosPauses {
  /** The fault kind of a pause long enough to cost a lease. */
  static final String KIND = "worker-paused";

  /**
   * The shortest pause that can cost a lease: the lease (the watchdog timeout) less the lease
   * keeper's period (a third of it). Paused from just before a renewal was due, a worker's lease
   * runs out this long after; paused from anywhere else, later.
   */
  static final Duration RENEWAL_SLACK =
      ChaosWorker.WATCHDOG.minus(ChaosWorker.WATCHDOG.dividedBy(3));

  /**
   * What the run's pauses were.
   *
   * @param lengthy the pauses of at least {@link #RENEWAL_SLACK}, as faults
   * @param shorter how many shorter ones were logged
   * @param longestShorterMillis the longest of those
   */
  record Figures(List<Fault> lengthy, int shorter, long longestShorterMillis) {
    /** The lengthy ones as people read them: "worker paused 2345 ms (worker 2 at 61.200 s)". */
    List<String> described(long origin) {
      return lengthy.stream()
          .map(
              pause ->
                  String.format(
                      Locale.ROOT,
                      "%s (worker %d at %.3f s)",
                      describe(pause),
                      pause.worker(),
                      (pause.start() - origin) / 1e9))
          .toList();
    }
  }

  /** One merged pause of a worker. */
  private record Pause(int worker, long start, long end) {}

  private final Map<Integer, List<Pause>> byWorker = new HashMap<>();
  private final List<Fault> lengthy = new ArrayList<>();
  private int shorter;
  private long longestShorter;

  /** Reads the pauses in {@code events}, leaving to {@code faults} those of stopped workers. */
  ChaosPauses(List<Event> events, List<Fault> faults) {
    Map<Integer, List<Pause>> evidence = new HashMap<>();
    for (Event event : events) {
      if (event.kind().equals("H")) {
        evidence
            .computeIfAbsent(event.worker(), w -> new ArrayList<>())
            .add(new Pause(event.worker(), Long.parseLong(event.field(0)), event.at()));
      }
    }
    evidence.forEach((worker, list) -> byWorker.put(worker, merged(list)));
    for (List<Pause> pauses : byWorker.values()) {
      for (Pause pause : pauses) {
        if (stopped(pause, faults)) {
          continue;
        }
        long nanos = pause.end() - pause.start();
        if (nanos >= RENEWAL_SLACK.toNanos()) {
          lengthy.add(
              new Fault(
                  pause.start(), pause.end(), KIND, ChaosDeployment.Data.KEPT, pause.worker()));
        } else {
          shorter++;
          longestShorter = Math.max(longestShorter, nanos);
        }
      }
    }
    lengthy.sort(Comparator.comparingLong(Fault::start));
  }

  /** "worker paused NNN ms": how a pause is named where it explains a loss. */
  static String describe(Fault pause) {
    return "worker paused " + TimeUnit.NANOSECONDS.toMillis(pause.end() - pause.start()) + " ms";
  }

  /** The pauses long enough to cost a lease, as faults of their worker. */
  List<Fault> asFaults() {
    return List.copyOf(lengthy);
  }

  Figures figures() {
    return new Figures(
        List.copyOf(lengthy), shorter, TimeUnit.NANOSECONDS.toMillis(longestShorter));
  }

  /**
   * How long worker {@code worker} was paused, by its evidence, between {@code from} and {@code
   * to}.
   */
  long pausedNanos(int worker, long from, long to) {
    long paused = 0;
    for (Pause pause : byWorker.getOrDefault(worker, List.of())) {
      paused += Math.max(0, Math.min(to, pause.end()) - Math.max(from, pause.start()));
    }
    return paused;
  }

  private static List<Pause> merged(List<Pause> evidence) {
    evidence.sort(Comparator.comparingLong(Pause::start));
    List<Pause> merged = new ArrayList<>();
    for (Pause next : evidence) {
      Pause last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && next.start() <= last.end()) {
        merged.set(
            merged.size() - 1,
            new Pause(last.worker(), last.start(), Math.max(last.end(), next.end())));
      } else {
        merged.add(next);
      }
    }
    return merged;
  }

  /** Whether an injected stop of the pause's worker overlaps it: the stop explains it. */
  private static boolean stopped(Pause pause, List<Fault> faults) {
    for (Fault fault : faults) {
      if (fault.worker() == pause.worker()
          && fault.kind().equals("stop-worker")
          && fault.start() < pause.end()
          && fault.end() > pause.start()) {
        return true;
      }
    }
    return false;
  }
}
