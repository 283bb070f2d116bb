package dev.warden.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures every point of every workload for both libraries, alternating on the same Redis: for
 * each point, a fresh client of one library, its trial's warm-up, then the measured window between
 * two snapshots of Redis's counters and this JVM's CPU time; then the same for the other library. A
 * point measured in two rounds runs A, B, B, A and adds each library's rounds up; which library is
 * A alternates from point to point, so that drift on a shared machine does not always favour the
 * same one.
 *
 * <p>Runs on the caller's thread; one trial at a time, so the JVM's CPU time in a window is the
 * running library's (and the benchmark's own bookkeeping, the same for both). A point whose starter
 * is a {@link Point.Launcher} runs its clients in processes of its own (W7): this JVM connects no
 * client then, and the trial adds its processes' CPU time to its tally.
 */
final class Runner {
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  /**
   * The longest a point's trial runs past its warm-up while this JVM's JIT still compiles {@link
   * CrossProcess#QUIET_MILLIS} ms of code or more per second: a window that opens while a library's
   * code is being compiled charges that compilation to the library's client CPU.
   */
  static final Duration JIT_QUIET_LIMIT = Duration.ofSeconds(10);

  private final Servers servers;
  private final Progress progress;
  private final String runId;
  private final Duration jitQuietLimit;
  private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private int pointsRun;
  private int trials;

  /**
   * @param jitQuietLimit the longest a trial waits after its warm-up for this JVM's JIT to go quiet
   *     ({@link #JIT_QUIET_LIMIT}; zero in a quick run)
   */
  Runner(Servers servers, Progress progress, String runId, Duration jitQuietLimit) {
    this.servers = servers;
    this.progress = progress;
    this.runId = runId;
    this.jitQuietLimit = jitQuietLimit;
  }

  /** Measures every point of {@code workload} into {@code results}. */
  void run(Workload workload, List<Point> points, Results results) throws InterruptedException {
    for (Point point : points) {
      boolean wardenFirst = pointsRun++ % 2 == 0;
      Map<Library, List<Measurement>> rounds = new EnumMap<>(Library.class);
      Map<Library, Sample> unmeasured = new EnumMap<>(Library.class);
      for (int round = 1; round <= point.rounds(); round++) {
        // A, B in odd rounds and B, A in even ones: A B B A for two rounds.
        boolean wardenNow = wardenFirst == (round % 2 == 1);
        for (Library library :
            wardenNow
                ? List.of(Library.WARDEN, Library.REDISSON)
                : List.of(Library.REDISSON, Library.WARDEN)) {
          String roundLabel = point.rounds() == 1 ? "" : " " + round + "/" + point.rounds();
          progress.begin(
              String.format(
                  Locale.ROOT,
                  "%s %-16s %-8s%s",
                  workload.id(),
                  point.label(),
                  library.displayName(),
                  roundLabel));
          Outcome outcome = measure(workload, point, library);
          if (outcome.measurement() != null) {
            rounds.computeIfAbsent(library, l -> new ArrayList<>()).add(outcome.measurement());
            progress.end(summary(workload, sample(workload, List.of(outcome.measurement()))));
          } else {
            unmeasured.putIfAbsent(library, outcome.unmeasured());
            progress.end(summary(workload, outcome.unmeasured()));
          }
        }
      }
      Map<Library, Sample> samples = new EnumMap<>(Library.class);
      for (Library library : Library.values()) {
        samples.put(
            library,
            unmeasured.containsKey(library)
                ? unmeasured.get(library)
                : sample(workload, rounds.get(library)));
      }
      results.add(workload, point, samples);
    }
  }

  /**
   * Runs {@code point} once per library for {@code each}, unmeasured, before anything is measured:
   * the library measured first would otherwise meet a JIT that has compiled none of its code yet. A
   * failure here is only shown: the measured runs report it again.
   */
  void warmUpJvm(Point point, Duration each) throws InterruptedException {
    for (Library library : Library.values()) {
      progress.begin(
          String.format(
              Locale.ROOT, "JVM warm-up %-9s %-8s", point.label(), library.displayName()));
      String prefix =
          String.join(":", "warden-bench", runId, "jvm-warm-up", point.slug(), library.key());
      String outcome = "done";
      try (Contender contender =
          library.connect(servers.of(point).uri(), point.watchdogTimeout())) {
        Trial trial = point.starter().start(contender, prefix);
        try {
          progress.phase("warm-up", each.toSeconds());
          trial.await(each);
        } finally {
          trial.finish(STOP_GRACE);
        }
      } catch (RuntimeException e) {
        outcome = "FAILED: " + e;
      }
      progress.end(outcome);
    }
  }

  /** Returns the sample of a library's rounds of one point, all measured. */
  private static Sample sample(Workload workload, List<Measurement> rounds) {
    Measurement combined = Measurement.combine(rounds);
    List<String> problems = new ArrayList<>();
    Map<String, Double> metrics = new LinkedHashMap<>(workload.metrics(combined, problems));
    metrics.putAll(Bound.of(combined, metrics, Runtime.getRuntime().availableProcessors()));
    return Sample.measured(metrics, combined.redis().byCommand(), problems);
  }

  /** One trial's result: a measurement, or a sample that says why there is none. */
  private record Outcome(Measurement measurement, Sample unmeasured) {
    static Outcome of(Measurement measurement) {
      return new Outcome(measurement, null);
    }

    static Outcome not(Sample why) {
      return new Outcome(null, why);
    }
  }

  /** Starts one trial. */
  private interface TrialStart {
    Trial start() throws InterruptedException;
  }

  /**
   * Runs one trial with a fresh client: in this JVM, or in the trial's own processes for a {@link
   * Point.Launcher}.
   */
  private Outcome measure(Workload workload, Point point, Library library)
      throws InterruptedException {
    String prefix =
        String.join(
            ":",
            "warden-bench",
            runId,
            workload.id().toLowerCase(Locale.ROOT),
            point.slug(),
            library.key() + ++trials);
    System.gc(); // the previous trial's garbage is not this one's to collect
    Servers.Target target;
    try {
      target = servers.of(point);
    } catch (BenchException e) {
      return Outcome.not(Sample.failed(e.getMessage()));
    }
    if (point.starter() instanceof Point.Launcher launcher) {
      progress.phase("starting processes", 0);
      return measure(point, target.stats(), () -> launcher.launch(library, target.uri(), prefix));
    }
    Contender contender;
    try {
      contender = library.connect(target.uri(), point.watchdogTimeout());
    } catch (RuntimeException e) {
      return Outcome.not(Sample.failed("cannot connect: " + e));
    }
    try (contender) {
      return measure(point, target.stats(), () -> point.starter().start(contender, prefix));
    } catch (RuntimeException e) { // closing the client failed
      return Outcome.not(Sample.failed(e.toString()));
    }
  }

  /**
   * Lets the trial run on, a second at a time, until this JVM compiled less than {@link
   * CrossProcess#QUIET_MILLIS} ms of code in the last second, or for at most {@code jitQuietLimit}.
   */
  private void awaitQuietJit(Trial trial) throws InterruptedException {
    if (jitQuietLimit.isZero() || jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return;
    }
    long deadline = System.nanoTime() + jitQuietLimit.toNanos();
    long compiled = jit.getTotalCompilationTime();
    while (System.nanoTime() - deadline < 0) {
      trial.await(Duration.ofSeconds(1));
      long now = jit.getTotalCompilationTime();
      if (now - compiled < CrossProcess.QUIET_MILLIS) {
        return;
      }
      compiled = now;
    }
  }

  private Outcome measure(Point point, Stats stats, TrialStart start) throws InterruptedException {
    try {
      Trial trial;
      try {
        trial = start.start();
      } catch (UnsupportedOperationException e) {
        return Outcome.not(Sample.unavailable(e.getMessage()));
      }
      RedisStats.Snapshot before;
      RedisStats.Snapshot after;
      long cpuBefore;
      long cpuAfter;
      long[] machineBefore;
      long[] machineAfter;
      long started;
      long ended;
      Tally tally;
      try {
        progress.phase("warm-up", point.warmUp().toSeconds());
        trial.await(point.warmUp());
        awaitQuietJit(trial);
        before = stats.snapshot(/* opening= */ true);
        machineBefore = Bound.machineTicks();
        cpuBefore = os.getProcessCpuTime();
        started = System.nanoTime();
        trial.openWindow();
        progress.phase("measuring", point.window().toSeconds());
        trial.await(point.window());
        trial.closeWindow();
        ended = System.nanoTime();
        cpuAfter = os.getProcessCpuTime();
        machineAfter = Bound.machineTicks();
        after = stats.snapshot(/* opening= */ false);
        progress.phase("stopping", 0);
      } finally {
        tally = trial.finish(STOP_GRACE);
      }
      return Outcome.of(
          new Measurement(
              point,
              tally,
              (ended - started) / 1e9,
              after.minus(before),
              cpuAfter - cpuBefore,
              Bound.busyPct(machineBefore, machineAfter)));
    } catch (BenchException e) {
      if (e.getCause() instanceof UnsupportedOperationException unsupported) {
        return Outcome.not(Sample.unavailable(unsupported.getMessage()));
      }
      return Outcome.not(Sample.failed(e.getMessage()));
    } catch (RuntimeException e) { // the library or Redis failed outside a worker
      return Outcome.not(Sample.failed(e.toString()));
    }
  }

  private static String summary(Workload workload, Sample sample) {
    if (!sample.measured()) {
      return (sample.status() == Sample.Status.UNAVAILABLE
              ? "not available in this build: "
              : "FAILED: ")
          + sample.note();
    }
    StringBuilder line = new StringBuilder();
    for (Metric metric : workload.headline().subList(0, Math.min(5, workload.headline().size()))) {
      line.append(metric.label()).append(' ').append(sample.format(metric)).append("  ");
    }
    sample.problems().forEach(problem -> line.append("PROBLEM: ").append(problem).append("  "));
    return line.toString().stripTrailing();
  }
}
