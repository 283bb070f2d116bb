package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * W7 and W7F: P worker JVMs of T threads each contend for one lock (W7 the reentrant lock, W7F the
 * fair lock), as several instances of a service would: each process has its own client, each thread
 * a lock object of its own, and a critical section increments a per-process plain counter. The
 * workers warm up until their JIT is quiet before the window opens ({@link W7Worker}).
 *
 * <p>Measures acquisitions per second, how long lock() waited, the longest stretch from a release
 * to the next acquisition, each process's share of the acquisitions, and how often the next holder
 * is in another process; checks on the merged timeline of every critical section that none
 * overlapped another ({@link Timeline}), which must be 0. Costs per acquisition count every worker
 * JVM's CPU time (and this JVM's, which only waits meanwhile).
 */
final class CrossProcess implements Workload {
  static final Metric WAIT_MAX = Metric.lower("wait_max_us", "wait max", Metric.Unit.MICROS);
  static final Metric SHARE_MIN =
      Metric.higher("share_min_pct", "smallest process share", Metric.Unit.PERCENT);
  static final Metric SHARE_MAX =
      Metric.lower("share_max_pct", "largest process share", Metric.Unit.PERCENT);

  /**
   * How often the next holder is in another process. No direction is better (more is fairer across
   * processes, fewer is cheaper); it is marked higher-is-better only to read its ratio one way.
   */
  static final Metric HOLDER_CHANGES =
      Metric.higher("holder_changes_pct", "holder changes process", Metric.Unit.PERCENT);

  static final Metric OVERLAPS =
      Metric.lower("overlaps", "overlaps (must be 0)", Metric.Unit.NUMBER);

  /**
   * How many workers warmed up until their JIT was quiet, not until the longest warm-up: under 100
   * % on a busy machine or in a quick run, whose warm-up is short.
   */
  static final Metric JIT_QUIET =
      Metric.higher("workers_jit_quiet_pct", "workers warmed to a quiet JIT", Metric.Unit.PERCENT);

  /** W7's longest wait: at most this, in microseconds. */
  static final double MAX_WAIT_MICROS = 250_000;

  /** W7's fair share: every process's share of the acquisitions within these multiples of 1/P. */
  static final double SHARE_LOW = 0.5;

  static final double SHARE_HIGH = 1.5;

  /** Compile time per second under which a worker's JIT counts as quiet. */
  static final long QUIET_MILLIS = 5;

  /**
   * One point's shape: processes times threads per process.
   *
   * @param processes how many worker JVMs
   * @param threads how many threads in each
   */
  record Shape(int processes, int threads) {
    String label() {
      return processes + "x" + threads;
    }
  }

  static final List<Shape> SHAPES = List.of(new Shape(4, 1), new Shape(4, 4), new Shape(8, 2));

  /** W9's shapes: many instances of one or two threads, and W7's 4x1 to compare them with. */
  static final List<Shape> MANY = List.of(new Shape(4, 1), new Shape(8, 2), new Shape(16, 1));

  /** W9: client CPU per acquisition at 16x1 at most this multiple of 4x1's (flat in P). */
  static final double FLAT_IN_PROCESSES = 1.2;

  /**
   * Client CPU per acquisition without the worker JVMs' JIT compiler threads: what W9's flatness is
   * judged on (see {@link #judge}). The JIT compiles once per JVM; with 16 JVMs on 2 cores its
   * warm-up ends at the cap and the compiling runs on into the window.
   */
  static final Metric CLIENT_CPU_NO_JIT =
      Metric.lower(
          "client_cpu_no_jit_us_per_op",
          "client CPU/op without JIT compilation",
          Metric.Unit.MICROS);

  /** Returns the metric of the worker JVMs' CPU per acquisition used by one kind of thread. */
  static Metric workerCpu(ProcThreads.Kind kind) {
    return Metric.lower(
        "worker_cpu_" + kind.key() + "_us_per_op",
        "workers' " + kind.label() + " CPU/op",
        Metric.Unit.MICROS);
  }

  static final Metric DELIVERIES =
      Metric.lower("deliveries_per_op", "pub/sub deliveries/op", Metric.Unit.NUMBER).inChart();

  private final String id;
  private final boolean fair;
  private final List<Shape> shapes;
  private final boolean countDeliveries;

  private CrossProcess(String id, boolean fair, List<Shape> shapes, boolean countDeliveries) {
    this.id = id;
    this.fair = fair;
    this.shapes = shapes;
    this.countDeliveries = countDeliveries;
  }

  /** Returns W7, on the reentrant lock. */
  static CrossProcess reentrant() {
    return new CrossProcess("W7", false, SHAPES, false);
  }

  /** Returns W7F, on the fair lock. */
  static CrossProcess fair() {
    return new CrossProcess("W7F", true, SHAPES, false);
  }

  /**
   * Returns W9, many instances: 16 processes of 1 thread and 8 of 2 (and 4x1 to compare) on the
   * reentrant lock, counting the pub/sub messages Redis delivers per acquisition.
   */
  static CrossProcess manyInstances() {
    return new CrossProcess("W9", false, MANY, true);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String title() {
    return countDeliveries
        ? "many instances: P JVMs x T threads on one lock, pub/sub deliveries counted"
        : "cross-process: P JVMs x T threads on one " + (fair ? "fair " : "") + "lock";
  }

  /**
   * Returns the longest a worker warms up: its JIT may never go quiet on a busy machine, and a
   * quick run is a smoke test.
   */
  static Duration maxWarmUp(Settings settings) {
    return Duration.ofSeconds(settings.quick() ? 3 : 30);
  }

  @Override
  public List<Point> points(Settings settings) {
    Duration maxWarmUp = maxWarmUp(settings);
    List<Point> points = new ArrayList<>();
    // A quick run, a smoke test of about 5 minutes in all, skips the middle shape (W7 8x2, W9 8x2).
    List<Shape> measured =
        settings.quick() && shapes.size() > 2
            ? List.of(shapes.get(0), shapes.get(shapes.size() - 1))
            : shapes;
    if (settings.quick() && !countDeliveries) {
      measured = shapes.subList(0, 2); // W7, W7F: 4x1 and 4x4, the shapes with targets
    }
    for (Shape shape : measured) {
      Map<String, Object> parameters = new LinkedHashMap<>();
      parameters.put("processes", shape.processes());
      parameters.put("threads", shape.threads());
      parameters.put("fair", fair);
      parameters.put("jit_quiet_ms_per_s", QUIET_MILLIS);
      parameters.put("max_jit_warm_up_s", maxWarmUp.toSeconds());
      points.add(
          new Point(
              shape.label(),
              parameters,
              Optional.empty(),
              settings.warmUp(), // the lead-in on the measured lock, after the JIT warm-up
              settings.window(),
              settings.rounds(),
              new Launch(fair, shape, maxWarmUp, countDeliveries)));
    }
    return points;
  }

  /** Returns the starter of a point of {@code shape}'s worker JVMs on the reentrant lock. */
  static Point.Launcher launcher(Shape shape, Settings settings) {
    return new Launch(false, shape, maxWarmUp(settings), false);
  }

  /** Starts one point's worker JVMs. */
  private record Launch(boolean fair, Shape shape, Duration maxWarmUp, boolean countDeliveries)
      implements Point.Launcher {
    @Override
    public Trial launch(Library library, String uri, String keyPrefix) throws InterruptedException {
      WorkerJvms trial =
          WorkerJvms.launch(
              library,
              fair,
              uri,
              shape.processes(),
              shape.threads(),
              keyPrefix,
              QUIET_MILLIS,
              maxWarmUp);
      if (countDeliveries) {
        try {
          trial.counting(Deliveries.watch(uri, keyPrefix));
        } catch (RuntimeException e) {
          BenchException failure = new BenchException("cannot count pub/sub deliveries: " + e, e);
          try {
            trial.finish(Duration.ofSeconds(30));
          } catch (BenchException stopping) {
            failure.addSuppressed(stopping);
          }
          throw failure;
        }
      }
      return trial;
    }

    /** Returns the longest warm-up and a few seconds to start the JVMs. */
    @Override
    public Duration setUp() {
      return maxWarmUp.plusSeconds(5);
    }
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    Tally tally = measurement.tally();
    int processes = (Integer) measurement.point().parameters().get("processes");
    double acquisitions = tally.inRun("acquisitions");
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("acquisitions_per_s", measurement.perSecond(acquisitions));
    metrics.putAll(measurement.latencies("wait"));
    long overlaps = tally.inRun("overlaps");
    metrics.put("overlaps", (double) overlaps);
    metrics.put(
        "longest_gap_us",
        acquisitions == 0 ? Double.NaN : (double) tally.histogram("gap").getMaxValue());
    double least = Double.NaN;
    double most = Double.NaN;
    if (acquisitions > 0) {
      least = Double.POSITIVE_INFINITY;
      most = 0;
      for (int process = 0; process < processes; process++) {
        double share = 100 * tally.inRun("process_" + process) / acquisitions;
        least = Math.min(least, share);
        most = Math.max(most, share);
      }
    }
    metrics.put("share_min_pct", least);
    metrics.put("share_max_pct", most);
    long successions = tally.inRun("successions");
    metrics.put(
        "holder_changes_pct",
        successions == 0 ? Double.NaN : 100.0 * tally.inRun("holder_changes") / successions);
    metrics.put("sections", (double) tally.inRun("sections"));
    long workers = tally.inRun("workers");
    metrics.put(
        "workers_jit_quiet_pct",
        workers == 0 ? Double.NaN : 100.0 * tally.inRun("workers_jit_quiet") / workers);
    // The client is every worker JVM: their CPU time, and this JVM's (it only waits meanwhile).
    Measurement withWorkers =
        new Measurement(
            measurement.point(),
            tally,
            measurement.seconds(),
            measurement.redis(),
            measurement.clientCpuNanos() + tally.inRun("worker_cpu_ns"));
    Map<String, Double> costs = withWorkers.costsPer(acquisitions);
    if (tally.inRun("worker_cpu_unknown") > 0) {
      costs.put("client_cpu_us_per_op", Double.NaN);
    }
    metrics.putAll(costs);
    metrics.putAll(threadClasses(tally, measurement.clientCpuNanos(), acquisitions));
    if (countDeliveries) {
      metrics.put(
          "publishes_per_op",
          acquisitions == 0 ? Double.NaN : tally.inRun("publishes") / acquisitions);
      metrics.put(
          DELIVERIES.key(),
          acquisitions == 0 ? Double.NaN : tally.inRun("deliveries") / acquisitions);
    }
    if (overlaps > 0) {
      problems.add(
          "OVERLAP: "
              + overlaps
              + " critical sections began before another had ended: two holders at once");
    }
    long lost = tally.inRun("lost_increments");
    if (lost > 0) {
      problems.add("a process's counter missed " + lost + " increments: two holders at once");
    }
    return metrics;
  }

  /**
   * Returns client CPU per acquisition without the workers' JIT compiler threads, and the workers'
   * CPU per acquisition by kind of thread ({@link ProcThreads}); NaN where the split is unknown.
   */
  static Map<String, Double> threadClasses(Tally tally, long ownCpuNanos, double acquisitions) {
    Map<String, Double> metrics = new LinkedHashMap<>();
    boolean known =
        acquisitions > 0
            && tally.inRun("worker_cpu_unknown") == 0
            && tally.inRun("worker_cpu_by_class_unknown") == 0;
    long jit = tally.inRun(WorkerJvms.cpuKey(ProcThreads.Kind.JIT));
    metrics.put(
        CLIENT_CPU_NO_JIT.key(),
        known
            ? (ownCpuNanos + tally.inRun("worker_cpu_ns") - jit) / 1e3 / acquisitions
            : Double.NaN);
    for (ProcThreads.Kind kind : ProcThreads.Kind.values()) {
      metrics.put(
          workerCpu(kind).key(),
          known ? tally.inRun(WorkerJvms.cpuKey(kind)) / 1e3 / acquisitions : Double.NaN);
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    if (countDeliveries) {
      judgeManyInstances(targets);
      return;
    }
    if (fair) {
      targets.versus("W7", Contended.ACQUISITIONS, 0.8, "point");
      for (Shape shape : SHAPES) {
        targets.ratio(shape.label(), Contended.ACQUISITIONS, 1.5); // issue 21
        targets.ratio(shape.label(), Costs.COMMANDS, 0.5);
      }
      targets.exclusion("no overlap of critical sections across processes");
      return;
    }
    for (String label : List.of("4x1", "4x4")) {
      targets.ratio(label, Contended.ACQUISITIONS, 2.0);
      targets.ratio(label, Contended.WAIT_P99, 0.5);
      maxWait(targets, label);
      shares(targets, label);
      // Issue 21 asks 0.6x at 4x1; 4x4 keeps the 0.5x it meets.
      targets.ratio(label, Costs.COMMANDS, label.equals("4x1") ? 0.6 : 0.5);
    }
    targets.exclusion("no overlap of critical sections across processes");
  }

  /**
   * W9's targets (issue 21): client CPU per acquisition flat in the number of processes (16x1 at
   * most {@link #FLAT_IN_PROCESSES} times 4x1), one pub/sub delivery per hand-off, no overlap.
   *
   * <p>Flatness is judged on client CPU without the worker JVMs' JIT compilation ({@link
   * #CLIENT_CPU_NO_JIT}), the figure with it shown beside: the target asks whether the work per
   * acquisition grows with P, and compiling is a one-time cost per JVM that 16 JVMs on 2 cores
   * stretch into the window (docs/performance.md). Where the split is unknown (no {@code /proc}) it
   * is judged on all the CPU.
   */
  private void judgeManyInstances(Targets.Of targets) {
    Optional<Results.PointResult> few = targets.point("4x1");
    Optional<Results.PointResult> many = targets.point("16x1");
    String all = Costs.CLIENT_CPU.key();
    String noJit = CLIENT_CPU_NO_JIT.key();
    double allRatio =
        many.isPresent() && few.isPresent()
            ? many.get().warden(all) / few.get().warden(all)
            : Double.NaN;
    double noJitRatio =
        many.isPresent() && few.isPresent()
            ? many.get().warden(noJit) / few.get().warden(noJit)
            : Double.NaN;
    if (Double.isNaN(noJitRatio)) {
      targets.addRatio(
          "16x1 client CPU/op vs 4x1 (flat in P"
              + (many.isPresent() && few.isPresent() ? "; JIT not split here" : "")
              + ")",
          "<= " + Format.ratio(FLAT_IN_PROCESSES),
          many.map(p -> Format.micros(p.warden(all))).orElse("not run"),
          few.map(p -> Format.micros(p.warden(all)) + " at 4x1").orElse("not run"),
          allRatio,
          FLAT_IN_PROCESSES,
          false);
    } else {
      targets.addRatio(
          "16x1 client CPU/op without JIT compilation vs 4x1 (flat in P)",
          "<= " + Format.ratio(FLAT_IN_PROCESSES),
          Format.micros(many.get().warden(noJit))
              + " ("
              + Format.micros(many.get().warden(all))
              + " with JIT)",
          Format.micros(few.get().warden(noJit))
              + " at 4x1 ("
              + Format.micros(few.get().warden(all))
              + " with JIT)",
          noJitRatio,
          Format.ratio(noJitRatio) + " (" + Format.ratio(allRatio) + " with JIT)",
          FLAT_IN_PROCESSES,
          false);
    }
    for (String label : List.of("16x1", "8x2")) {
      targets.limit(label, DELIVERIES, "<= 1", v -> v <= 1.0);
    }
    targets.exclusion("no overlap of critical sections across processes");
  }

  /** The longest wait at one point: at most {@link #MAX_WAIT_MICROS}. */
  static void maxWait(Targets.Of targets, String label) {
    Optional<Results.PointResult> point = targets.point(label);
    double maxWait = point.map(p -> p.warden(WAIT_MAX.key())).orElse(Double.NaN);
    targets.add(
        label + " " + WAIT_MAX.label(),
        "<= " + Format.micros(MAX_WAIT_MICROS),
        Format.micros(maxWait),
        point.map(p -> p.sample(Library.REDISSON).format(WAIT_MAX)).orElse(""),
        maxWait,
        Format.micros(maxWait),
        v -> v <= MAX_WAIT_MICROS);
  }

  /**
   * The fair share at one point: the share furthest from 1/P, in multiples of 1/P, within {@link
   * #SHARE_LOW} to {@link #SHARE_HIGH}.
   */
  static void shares(Targets.Of targets, String label) {
    Optional<Results.PointResult> point = targets.point(label);
    double processes =
        point
            .map(p -> p.point().parameters().get("processes"))
            .map(n -> ((Number) n).doubleValue())
            .orElse(Double.NaN);
    double least = point.map(p -> p.warden("share_min_pct")).orElse(Double.NaN) * processes / 100;
    double most = point.map(p -> p.warden("share_max_pct")).orElse(Double.NaN) * processes / 100;
    double furthest = Math.abs(1 - least) >= Math.abs(most - 1) ? least : most;
    targets.add(
        label + " every process's share of acquisitions, in 1/P",
        Format.number(SHARE_LOW) + " to " + Format.number(SHARE_HIGH),
        "min " + Format.number(least) + ", max " + Format.number(most),
        point
            .map(
                p ->
                    "min "
                        + Format.number(p.redisson("share_min_pct") * processes / 100)
                        + ", max "
                        + Format.number(p.redisson("share_max_pct") * processes / 100))
            .orElse(""),
        furthest,
        Format.number(furthest),
        v -> v >= SHARE_LOW && v <= SHARE_HIGH);
  }

  @Override
  public List<Metric> headline() {
    List<Metric> headline =
        new ArrayList<>(
            List.of(
                Contended.ACQUISITIONS,
                Metric.lower("wait_p50_us", "wait p50", Metric.Unit.MICROS),
                Contended.WAIT_P99,
                WAIT_MAX,
                OVERLAPS,
                Metric.lower("longest_gap_us", "longest gap", Metric.Unit.MICROS),
                SHARE_MIN,
                SHARE_MAX,
                HOLDER_CHANGES,
                Costs.COMMANDS));
    if (countDeliveries) {
      headline.addAll(List.of(Costs.CLIENT_CPU.inChart(), CLIENT_CPU_NO_JIT.inChart()));
      for (ProcThreads.Kind kind : ProcThreads.Kind.values()) {
        headline.add(workerCpu(kind));
      }
      headline.addAll(
          List.of(
              Costs.REDIS_CPU.inChart(),
              Metric.lower("publishes_per_op", "publishes/op", Metric.Unit.NUMBER),
              DELIVERIES));
    } else {
      headline.addAll(List.of(Costs.CLIENT_CPU, Costs.REDIS_CPU));
    }
    headline.add(JIT_QUIET);
    return headline;
  }
}
