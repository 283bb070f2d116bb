package dev.warden.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures every point of every workload for both libraries, alternating on the same Redis: for
 * each point, a fresh client of one library, its trial's warm-up, then the measured window between
 * two snapshots of Redis's counters and this JVM's CPU time; then the same for the other library.
 * Which library goes first alternates from point to point, so that drift on a shared machine
 * does not always favour the same one.
 *
 * <p>Runs on the caller's thread; one trial at a time, so the JVM's CPU time in a window is the
 * running library's (and the benchmark's own bookkeeping, the same for both).
 */
final class Runner {
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final String uri;
  private final RedisStats stats;
  private final Progress progress;
  private final String runId;
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private int pointsRun;

  Runner(String uri, RedisStats stats, Progress progress, String runId) {
    this.uri = uri;
    this.stats = stats;
    this.progress = progress;
    this.runId = runId;
  }

  /** Measures every point of {@code workload} into {@code results}. */
  void run(Workload workload, List<Point> points, Results results) throws InterruptedException {
    for (Point point : points) {
      List<Library> order =
          pointsRun++ % 2 == 0
              ? List.of(Library.WARDEN, Library.REDISSON)
              : List.of(Library.REDISSON, Library.WARDEN);
      Map<Library, Sample> samples = new EnumMap<>(Library.class);
      for (Library library : order) {
        progress.begin(String.format(Locale.ROOT, "%s %-16s %-8s", workload.id(), point.label(), library.displayName()));
        Sample sample = measure(workload, point, library);
        samples.put(library, sample);
        progress.end(summary(workload, sample));
      }
      results.add(workload, point, samples);
    }
  }

  private Sample measure(Workload workload, Point point, Library library) throws InterruptedException {
    String prefix = String.join(":", "warden-bench", runId, workload.id().toLowerCase(Locale.ROOT), point.slug(), library.key());
    System.gc(); // the previous trial's garbage is not this one's to collect
    Contender contender;
    try {
      contender = library.connect(uri, point.watchdogTimeout());
    } catch (RuntimeException e) {
      return Sample.failed("cannot connect: " + e);
    }
    try (contender) {
      Trial trial;
      try {
        trial = point.starter().start(contender, prefix);
      } catch (UnsupportedOperationException e) {
        return Sample.unavailable(e.getMessage());
      }
      RedisStats.Snapshot before;
      RedisStats.Snapshot after;
      long cpuBefore;
      long cpuAfter;
      long started;
      long ended;
      Tally tally;
      try {
        progress.phase("warm-up", point.warmUp().toSeconds());
        trial.await(point.warmUp());
        before = stats.snapshot(/* opening= */ true);
        cpuBefore = os.getProcessCpuTime();
        started = System.nanoTime();
        trial.openWindow();
        progress.phase("measuring", point.window().toSeconds());
        trial.await(point.window());
        trial.closeWindow();
        ended = System.nanoTime();
        cpuAfter = os.getProcessCpuTime();
        after = stats.snapshot(/* opening= */ false);
        progress.phase("stopping", 0);
      } finally {
        tally = trial.finish(STOP_GRACE);
      }
      Measurement measurement =
          new Measurement(point, tally, (ended - started) / 1e9, after.minus(before), cpuAfter - cpuBefore);
      List<String> problems = new ArrayList<>();
      Map<String, Double> metrics = workload.metrics(measurement, problems);
      return Sample.measured(metrics, measurement.redis().byCommand(), problems);
    } catch (BenchException e) {
      if (e.getCause() instanceof UnsupportedOperationException unsupported) {
        return Sample.unavailable(unsupported.getMessage());
      }
      return Sample.failed(e.getMessage());
    } catch (RuntimeException e) { // the library or Redis failed outside a worker
      return Sample.failed(e.toString());
    }
  }

  private static String summary(Workload workload, Sample sample) {
    if (!sample.measured()) {
      return (sample.status() == Sample.Status.UNAVAILABLE ? "not available in this build: " : "FAILED: ") + sample.note();
    }
    StringBuilder line = new StringBuilder();
    for (Metric metric : workload.headline().subList(0, Math.min(5, workload.headline().size()))) {
      line.append(metric.label()).append(' ').append(sample.format(metric)).append("  ");
    }
    sample.problems().forEach(problem -> line.append("PROBLEM: ").append(problem).append("  "));
    return line.toString().stripTrailing();
  }
}
