package dev.warden.bench;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One worker thread's counts and latency histograms (HdrHistogram) for one run, merged with the
 * other threads' once they have stopped. Events are counted over the whole run (for correctness
 * checks, such as "the counter equals the acquisitions") and, separately, within the measured
 * window; latencies are recorded when they overlap the window (see {@link Window}).
 *
 * <p>Not thread-safe: one per thread, merged with {@link #add} after the threads have joined.
 */
final class Tally {
  private final Window window;
  private final Map<String, long[]> windowCounts = new TreeMap<>();
  private final Map<String, long[]> runCounts = new TreeMap<>();
  private final Map<String, Histogram> histograms = new TreeMap<>();

  /** Returns a tally that counts into {@code window}; a merged tally gets one never opened. */
  Tally(Window window) {
    this.window = window;
  }

  /** Counts one event of {@code kind}: in the run, and in the window if it is open. */
  void count(String kind) {
    runCounts.computeIfAbsent(kind, k -> new long[1])[0]++;
    if (window.isOpen()) {
      windowCounts.computeIfAbsent(kind, k -> new long[1])[0]++;
    }
  }

  /** Records the latency from {@code startNanos} to {@code endNanos} if it overlaps the window. */
  void latency(String kind, long startNanos, long endNanos) {
    if (window.overlaps(startNanos, endNanos)) {
      long micros = Math.max(0, (endNanos - startNanos + 500) / 1_000);
      histograms.computeIfAbsent(kind, k -> newHistogram()).recordValue(micros);
    }
  }

  /** Records the latency from {@code startNanos} to now; returns now. */
  long latencySince(String kind, long startNanos) {
    long now = System.nanoTime();
    latency(kind, startNanos, now);
    return now;
  }

  /** Sets a whole-run value that no single event counts, e.g. a shared counter's final value. */
  void set(String kind, long value) {
    runCounts.computeIfAbsent(kind, k -> new long[1])[0] = value;
  }

  /** Adds another thread's counts and histograms to these. */
  void add(Tally other) {
    other.windowCounts.forEach(
        (kind, n) -> windowCounts.computeIfAbsent(kind, k -> new long[1])[0] += n[0]);
    other.runCounts.forEach(
        (kind, n) -> runCounts.computeIfAbsent(kind, k -> new long[1])[0] += n[0]);
    other.histograms.forEach(
        (kind, h) -> histograms.computeIfAbsent(kind, k -> newHistogram()).add(h));
  }

  /** Returns how many events of {@code kind} happened within the window. */
  long inWindow(String kind) {
    long[] n = windowCounts.get(kind);
    return n == null ? 0 : n[0];
  }

  /** Returns how many events of {@code kind} happened in the whole run, warm-up included. */
  long inRun(String kind) {
    long[] n = runCounts.get(kind);
    return n == null ? 0 : n[0];
  }

  /**
   * Returns the latencies of {@code kind} recorded in the window, in microseconds (empty if none):
   * an HdrHistogram of three significant digits (exact below 2,048 us, within 0.1 % above), whose
   * percentiles and maximum are never below the true value.
   */
  Histogram histogram(String kind) {
    Histogram histogram = histograms.get(kind);
    return histogram == null ? newHistogram() : histogram;
  }

  /** Returns an empty histogram that grows to whatever range is recorded. */
  private static Histogram newHistogram() {
    return new Histogram(3);
  }
}
