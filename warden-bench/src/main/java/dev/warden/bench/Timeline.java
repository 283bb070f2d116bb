package dev.warden.bench;

import dev.warden.bench.SectionLog.Section;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every worker process's critical sections of one W7 trial merged into one timeline, ordered by
 * when lock() returned, and what it shows: overlapping sections (two holders at once, whatever the
 * process), the acquisitions in the window and each process's part of them, the gaps from one
 * release to the next acquisition, and how often the next holder is in another process.
 *
 * <p>Overlaps and lost counter increments are counted over the whole trial, lead-in and stop
 * included: mutual exclusion must hold all the time. Everything else counts the acquisitions whose
 * lock() returned inside the window; a wait counts when it overlaps the window (see {@link
 * Window}). Immutable.
 */
final class Timeline {
  private final long[] perProcess;
  private final long sections;
  private final long overlaps;
  private final long successions;
  private final long holderChanges;
  private final long lostIncrements;
  private final Tally tally;

  private Timeline(
      long[] perProcess,
      long sections,
      long overlaps,
      long successions,
      long holderChanges,
      long lostIncrements,
      Tally tally) {
    this.perProcess = perProcess;
    this.sections = sections;
    this.overlaps = overlaps;
    this.successions = successions;
    this.holderChanges = holderChanges;
    this.lostIncrements = lostIncrements;
    this.tally = tally;
  }

  /**
   * Merges the logs of processes {@code 0} to {@code logs.size() - 1} and measures them against
   * {@code window}.
   *
   * @throws IllegalArgumentException if a log's process number is out of that range or repeated
   */
  static Timeline of(List<SectionLog> logs, Window window) {
    int processes = logs.size();
    boolean[] seen = new boolean[processes];
    List<Section> all = new ArrayList<>();
    long lost = 0;
    for (SectionLog log : logs) {
      if (log.process() < 0 || log.process() >= processes || seen[log.process()]) {
        throw new IllegalArgumentException(
            "process numbers must be 0 to " + (processes - 1) + ", once each: " + log.process());
      }
      seen[log.process()] = true;
      all.addAll(log.sections());
      // The counter is a plain read-then-write: a holder at the same time loses an increment.
      lost += Math.abs(log.sections().size() - log.counter());
    }
    all.sort(Comparator.comparingLong(Section::acquiredAt).thenComparingLong(Section::releasedAt));

    Tally tally = new Tally(window);
    long[] perProcess = new long[processes];
    long overlaps = 0;
    long successions = 0;
    long changes = 0;
    long latestRelease = Long.MIN_VALUE;
    Section previous = null;
    for (Section section : all) {
      // Sorted by acquisition: a section that starts before any earlier one ended overlaps it.
      if (section.acquiredAt() < latestRelease) {
        overlaps++;
      }
      latestRelease = Math.max(latestRelease, section.releasedAt());
      tally.latency("wait", section.calledAt(), section.acquiredAt());
      if (window.contains(section.acquiredAt())) {
        perProcess[section.process()]++;
        if (previous != null) {
          successions++;
          if (previous.process() != section.process()) {
            changes++;
          }
          tally.latency("gap", previous.releasedAt(), section.acquiredAt());
        }
      }
      previous = section;
    }
    long acquisitions = 0;
    for (int process = 0; process < processes; process++) {
      tally.set("process_" + process, perProcess[process]);
      acquisitions += perProcess[process];
    }
    tally.set("acquisitions", acquisitions);
    tally.set("sections", all.size());
    tally.set("overlaps", overlaps);
    tally.set("successions", successions);
    tally.set("holder_changes", changes);
    tally.set("lost_increments", lost);
    return new Timeline(perProcess, all.size(), overlaps, successions, changes, lost, tally);
  }

  /** Returns the acquisitions in the window, all processes together. */
  long acquisitions() {
    long sum = 0;
    for (long n : perProcess) {
      sum += n;
    }
    return sum;
  }

  /** Returns the acquisitions in the window of process {@code process}. */
  long acquisitions(int process) {
    return perProcess[process];
  }

  /** Returns the sections of the whole trial, all processes together. */
  long sections() {
    return sections;
  }

  /** Returns how many sections began before an earlier one had ended: 0 under mutual exclusion. */
  long overlaps() {
    return overlaps;
  }

  /** Returns how many acquisitions in the window followed another one (the first one may not). */
  long successions() {
    return successions;
  }

  /** Returns how many of those successions went to a thread of another process. */
  long holderChanges() {
    return holderChanges;
  }

  /** Returns how far the processes' counters fell short of their sections, all together. */
  long lostIncrements() {
    return lostIncrements;
  }

  /**
   * Returns the timeline as a tally that adds up over rounds: the counts above as whole-run values
   * ({@code acquisitions}, {@code process_<n>}, {@code sections}, {@code overlaps}, {@code
   * successions}, {@code holder_changes}, {@code lost_increments}) and the {@code wait} and {@code
   * gap} histograms.
   */
  Tally tally() {
    return tally;
  }
}
