package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * One point of a workload (a thread count, a number of held locks), measured once for each library,
 * each time with a fresh client.
 *
 * @param label how tables show the point, e.g. {@code T=16}
 * @param parameters the point's settings for the results file, e.g. {@code threads=16}
 * @param watchdogTimeout the lock watchdog timeout both libraries get; empty for their defaults
 * @param warmUp how long the trial runs before the window opens
 * @param window how long the measured window of one round lasts
 * @param rounds in how many rounds (trials with fresh clients) each library is measured
 * @param starter starts the trial on a library's client
 */
record Point(
    String label,
    Map<String, Object> parameters,
    Optional<Duration> watchdogTimeout,
    Duration warmUp,
    Duration window,
    int rounds,
    Starter starter) {

  /** Starts one library's trial of a point. */
  interface Starter {
    /**
     * Makes the locks (so that a primitive the library lacks fails here, with {@link
     * UnsupportedOperationException}), does any setup, starts the workers and returns.
     *
     * @param keyPrefix a prefix for lock names that no other trial of this run uses
     */
    Trial start(Contender contender, String keyPrefix) throws InterruptedException;
  }

  /**
   * Starts a trial whose clients live in processes of its own: the runner connects no client in its
   * JVM for such a point, and calls {@link #launch} instead of {@link #start}.
   */
  interface Launcher extends Starter {
    /**
     * Starts the trial's processes with clients of {@code library} on {@code uri}, waits until they
     * are warm, starts their workers and returns.
     *
     * @param keyPrefix a prefix for lock names that no other trial of this run uses
     * @throws BenchException if a process failed to start or to warm up
     */
    Trial launch(Library library, String uri, String keyPrefix) throws InterruptedException;

    /** Returns about how long {@link #launch} takes at most, for the run's estimate. */
    Duration setUp();

    /**
     * Throws: a launcher's trial has no client in this JVM.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    default Trial start(Contender contender, String keyPrefix) {
      throw new UnsupportedOperationException("this point's clients run in processes of their own");
    }
  }

  Point {
    parameters = Map.copyOf(parameters);
  }

  /**
   * Returns a point per thread count, labelled {@code T=<n>}, with the settings' warm-up and window
   * and the libraries' default watchdog; {@code starters} gives each count's starter.
   */
  static List<Point> perThreadCount(
      List<Integer> threadCounts,
      Map<String, Object> parameters,
      Settings settings,
      IntFunction<Starter> starters) {
    List<Point> points = new ArrayList<>();
    for (int threads : threadCounts) {
      Map<String, Object> withThreads = new HashMap<>(parameters);
      withThreads.put("threads", threads);
      points.add(
          new Point(
              "T=" + threads,
              withThreads,
              Optional.empty(),
              settings.warmUp(),
              settings.window(),
              settings.rounds(),
              starters.apply(threads)));
    }
    return points;
  }

  /** Returns whether the point runs on the Redis Cluster (parameter {@code cluster}: W10). */
  boolean onCluster() {
    return Boolean.TRUE.equals(parameters.get("cluster"));
  }

  /** Returns the label as a key fragment: {@code T=16} becomes {@code t16}. */
  String slug() {
    return label.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "");
  }
}
