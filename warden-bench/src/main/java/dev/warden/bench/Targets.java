package dev.warden.bench;

import dev.warden.bench.Results.PointResult;
import dev.warden.bench.Results.WorkloadResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoublePredicate;

/**
 * The targets of issue #5 (W1 to W6) and of the cross-process issue (W7, W7F), and how this run
 * measures up to each: a ratio of Warden to Redisson, or one of Warden's own numbers, against a
 * goal. A target whose workload did not run, or whose Warden primitive is not available in this
 * build, is N/A, never PASS.
 */
final class Targets {
  /**
   * W3's "no stall": the longest stretch without an acquisition stays below Warden's re-check
   * interval.
   */
  static final double STALL_MICROS = 200_000;

  /** W1 at 16 and 64 threads: the least share of the redis-benchmark ceiling for a pair. */
  static final double CEILING_SHARE = 0.85;

  /** W3's "independent of waiters": commands per acquisition at T=32 within this factor of T=2. */
  static final double WAITER_COST_TOLERANCE = 1.25;

  /** W7's longest wait: at most this, in microseconds. */
  static final double W7_MAX_WAIT_MICROS = 250_000;

  /** W7's fair share: every process's share of the acquisitions within these multiples of 1/P. */
  static final double SHARE_LOW = 0.5;

  static final double SHARE_HIGH = 1.5;

  /** W5's "no growth after churn": work after churn within this factor of the fresh run. */
  static final double CHURN_TOLERANCE = 1.10;

  /** How a target came out. */
  enum Outcome {
    PASS,
    MISS,
    NA
  }

  /**
   * One target's verdict.
   *
   * @param workload the workload id
   * @param target what is measured, e.g. "T=16 pairs/s"
   * @param goal the goal, e.g. ">= 3x Redisson"
   * @param warden Warden's number, formatted
   * @param redisson Redisson's number, formatted ("" when the goal is on Warden alone)
   * @param measured the value judged (a ratio or Warden's number), formatted
   * @param value the value judged; NaN when N/A
   * @param ratioGoal the goal when the value is a ratio (charted), else NaN
   * @param atLeast whether the value must reach the goal from below (else stay under it)
   * @param outcome PASS, MISS or NA
   */
  record Verdict(
      String workload,
      String target,
      String goal,
      String warden,
      String redisson,
      String measured,
      double value,
      double ratioGoal,
      boolean atLeast,
      Outcome outcome) {
    Map<String, Object> toJson() {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("workload", workload);
      json.put("target", target);
      json.put("goal", goal);
      json.put("warden", warden);
      json.put("redisson", redisson);
      json.put("measured", measured);
      json.put("value", value);
      json.put("ratio_goal", ratioGoal);
      json.put("outcome", outcome.name());
      return json;
    }
  }

  private final Results results;
  private final List<Verdict> verdicts = new ArrayList<>();

  private Targets(Results results) {
    this.results = results;
  }

  /** Judges every target against the results, in the order. */
  static List<Verdict> evaluate(Results results) {
    Targets targets = new Targets(results);
    targets.w1();
    targets.w2();
    targets.w3();
    targets.w4();
    targets.w5();
    targets.w6();
    targets.w7();
    targets.w7f();
    return List.copyOf(targets.verdicts);
  }

  private void w1() {
    versusCeiling("T=16");
    versusCeiling("T=64");
    ratio("W1", "T=16", Costs.CLIENT_CPU, 0.4);
    ratio("W1", "T=64", Costs.CLIENT_CPU, 0.4);
    ratio("W1", "T=1", W1Uncontended.PAIRS, 1.3);
    worstOfWarden("W1", "round trips per pair (every T)", Costs.ROUND_TRIPS, 2.0);
  }

  /**
   * W1's pairs per second at one point against the same run's redis-benchmark ceiling for a pair of
   * lock-shaped scripts from 16 clients ({@link Ceiling}): at least {@link #CEILING_SHARE}.
   */
  private void versusCeiling(String label) {
    double pairs =
        point("W1", label).map(p -> p.warden(W1Uncontended.PAIRS.key())).orElse(Double.NaN);
    double ceiling = results.ceiling().rate(16);
    double share = pairs / ceiling;
    add(
        "W1",
        label + " pairs/s vs the ceiling (redis-benchmark pairs, 16 clients)",
        ">= " + Math.round(CEILING_SHARE * 100) + " % of the ceiling",
        Double.isNaN(pairs)
            ? "not run"
            : Format.compact(pairs) + "/s of " + Format.compact(ceiling) + "/s",
        "",
        share,
        Double.isNaN(share) ? "n/a" : Math.round(share * 100) + " %",
        v -> v >= CEILING_SHARE);
  }

  private void w2() {
    ratio("W2", "T=32", Contended.ACQUISITIONS, 2.0);
    ratio("W2", "T=32", Contended.WAIT_P99, 0.25);
    exclusion("W2");
  }

  private void w3() {
    Optional<WorkloadResult> w3 = results.workload("W3");
    versusPlain("W3", "W2", "T");

    Optional<PointResult> few = w3.flatMap(w -> w.point("T=2"));
    Optional<PointResult> many = w3.flatMap(w -> w.point("T=32"));
    double growth =
        few.isPresent() && many.isPresent()
            ? many.get().warden("cmds_per_op") / few.get().warden("cmds_per_op")
            : Double.NaN;
    addRatio(
        "W3",
        "cmds/acquisition at T=32 vs T=2",
        "<= " + Format.ratio(WAITER_COST_TOLERANCE),
        many.map(p -> Format.number(p.warden("cmds_per_op"))).orElse("n/a"),
        few.map(p -> Format.number(p.warden("cmds_per_op"))).orElse("n/a") + " at T=2",
        growth,
        WAITER_COST_TOLERANCE,
        false);

    double longestGap = worstWarden("W3", "longest_gap_us", true);
    add(
        "W3",
        "no stall: longest gap between acquisitions (every T)",
        "< " + Format.micros(STALL_MICROS),
        Format.micros(longestGap),
        "",
        longestGap,
        Format.micros(longestGap),
        v -> v < STALL_MICROS);
    exclusion("W3");
  }

  /**
   * A fair lock's target on Warden's own plain lock: acquisitions per second of workload {@code
   * fair} at least 80 % of those of workload {@code plain}, at every point ({@code what} names the
   * points in the target, e.g. "T").
   */
  private void versusPlain(String fair, String plain, String what) {
    Optional<WorkloadResult> plainResult = results.workload(plain);
    Map<String, Double> shares = new LinkedHashMap<>();
    for (PointResult point : results.workload(fair).map(WorkloadResult::points).orElse(List.of())) {
      plainResult
          .flatMap(w -> w.point(point.point().label()))
          .ifPresent(
              plainPoint ->
                  shares.put(
                      point.point().label(),
                      point.warden("acquisitions_per_s")
                          / plainPoint.warden("acquisitions_per_s")));
    }
    String at = worstKey(shares, false);
    double worst = at == null ? Double.NaN : shares.get(at);
    addRatio(
        fair,
        "acquisitions/s vs Warden's "
            + plain
            + " (worst "
            + what
            + (Double.isNaN(worst) ? "" : ": " + at)
            + ")",
        ">= 0.80x",
        "",
        "",
        worst,
        0.8,
        true);
  }

  private void w4() {
    Optional<PointResult> point = results.workload("W4").map(w -> w.points().get(0));
    double p99 = point.map(p -> p.warden("writer_wait_p99_us")).orElse(Double.NaN);
    add(
        "W4",
        "writer wait p99",
        "< 50 ms",
        Format.micros(p99),
        point.map(p -> Format.micros(p.redisson("writer_wait_p99_us"))).orElse(""),
        p99,
        Format.micros(p99),
        v -> v < 50_000);
    ratio("W4", point.map(p -> p.point().label()).orElse("16R+1W"), W4ReadWrite.READS, 0.8);
    exclusion("W4");
  }

  private void w5() {
    for (String locks : List.of("N=1,000", "N=10,000")) {
      limitOfWarden("W5", locks, W5LeaseKeeper.COMMANDS_PER_RENEWAL, "<= 2", v -> v <= 2.0);
      limitOfWarden("W5", locks, W5LeaseKeeper.RENEWALS_PER_THIRD, "exactly 1", v -> v == 1.0);
    }
    Map<String, Double> growths = new LinkedHashMap<>();
    for (String locks : List.of("N=1,000", "N=10,000")) {
      Optional<PointResult> fresh = point("W5", locks);
      Optional<PointResult> churned = point("W5", locks + " churned");
      if (fresh.isPresent() && churned.isPresent()) {
        growths.put(locks, churned.get().warden("cmds_per_s") / fresh.get().warden("cmds_per_s"));
      }
    }
    String at = worstKey(growths, true);
    double growth = at == null ? Double.NaN : growths.get(at);
    String detail =
        at == null
            ? "n/a"
            : Format.compact(point("W5", at + " churned").get().warden("cmds_per_s"))
                + "/s vs "
                + Format.compact(point("W5", at).get().warden("cmds_per_s"))
                + "/s at "
                + at;
    addRatio(
        "W5",
        "no growth after churn: cmds/s churned vs fresh (worst N)",
        "<= " + Format.ratio(CHURN_TOLERANCE),
        detail,
        "",
        growth,
        CHURN_TOLERANCE,
        false);
    ratio("W5", "N=10,000", W5LeaseKeeper.CLIENT_CPU, 0.5);
  }

  private void w6() {
    ratio("W6", "2 threads", W6HandOff.HANDOFF_P50, 0.75);
  }

  private void w7() {
    for (String label : List.of("4x1", "4x4")) {
      ratio("W7", label, Contended.ACQUISITIONS, 2.0);
      ratio("W7", label, Contended.WAIT_P99, 0.5);
      Optional<PointResult> point = point("W7", label);
      double maxWait = point.map(p -> p.warden(CrossProcess.WAIT_MAX.key())).orElse(Double.NaN);
      add(
          "W7",
          label + " " + CrossProcess.WAIT_MAX.label(),
          "<= " + Format.micros(W7_MAX_WAIT_MICROS),
          Format.micros(maxWait),
          point.map(p -> p.sample(Library.REDISSON).format(CrossProcess.WAIT_MAX)).orElse(""),
          maxWait,
          Format.micros(maxWait),
          v -> v <= W7_MAX_WAIT_MICROS);
      shares(label, point);
      ratio("W7", label, Costs.COMMANDS, 0.5);
    }
    exclusion("W7", "no overlap of critical sections across processes");
  }

  /**
   * W7's fair share at one point: the share furthest from 1/P, in multiples of 1/P, within {@link
   * #SHARE_LOW} to {@link #SHARE_HIGH}.
   */
  private void shares(String label, Optional<PointResult> point) {
    double processes =
        point
            .map(p -> p.point().parameters().get("processes"))
            .map(n -> ((Number) n).doubleValue())
            .orElse(Double.NaN);
    double least = point.map(p -> p.warden("share_min_pct")).orElse(Double.NaN) * processes / 100;
    double most = point.map(p -> p.warden("share_max_pct")).orElse(Double.NaN) * processes / 100;
    double furthest = Math.abs(1 - least) >= Math.abs(most - 1) ? least : most;
    add(
        "W7",
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

  private void w7f() {
    versusPlain("W7F", "W7", "point");
    for (CrossProcess.Shape shape : CrossProcess.SHAPES) {
      ratio("W7F", shape.label(), Costs.COMMANDS, 0.5);
    }
    exclusion("W7F", "no overlap of critical sections across processes");
  }

  /** A ratio target: Warden over Redisson at one point, at least (higher is better) or at most. */
  private void ratio(String workload, String label, Metric metric, double goal) {
    Optional<PointResult> point = point(workload, label);
    double ratio = point.map(p -> p.ratio(metric.key())).orElse(Double.NaN);
    addRatio(
        workload,
        label + " " + metric.label(),
        (metric.higherIsBetter() ? ">= " : "<= ") + Format.ratio(goal) + " Redisson",
        point.map(p -> p.sample(Library.WARDEN).format(metric)).orElse("not run"),
        point.map(p -> p.sample(Library.REDISSON).format(metric)).orElse("not run"),
        ratio,
        goal,
        metric.higherIsBetter());
  }

  /**
   * A target on Warden's own worst count per operation over a workload's points, judged to one
   * decimal: the window's edges and background traffic (renewals, pings) add hundredths.
   */
  private void worstOfWarden(String workload, String target, Metric metric, double limit) {
    double worst = worstWarden(workload, metric.key(), !metric.higherIsBetter());
    Optional<PointResult> first = results.workload(workload).map(w -> w.points().get(0));
    String redisson =
        first
            .map(p -> p.sample(Library.REDISSON).format(metric) + " at " + p.point().label())
            .orElse("");
    add(
        workload,
        target,
        "<= " + Format.number(limit),
        metric.format(worst),
        redisson,
        worst,
        metric.format(worst),
        v -> Math.round(v * 10) / 10.0 <= limit);
  }

  /**
   * A target on one of Warden's own figures at one point, judged to one decimal (a window's edges
   * cut renewal passes and add background commands).
   */
  private void limitOfWarden(
      String workload, String label, Metric metric, String goal, DoublePredicate met) {
    Optional<PointResult> point = point(workload, label);
    double value = point.map(p -> p.warden(metric.key())).orElse(Double.NaN);
    add(
        workload,
        label + " " + metric.label(),
        goal,
        metric.format(value),
        point.map(p -> p.sample(Library.REDISSON).format(metric)).orElse(""),
        value,
        metric.format(value),
        v -> met.test(Math.round(v * 10) / 10.0));
  }

  /** Warden's mark on mutual exclusion: no correctness problem at any point of the workload. */
  private void exclusion(String workload) {
    exclusion(workload, "mutual exclusion held (counter/reads checked)");
  }

  private void exclusion(String workload, String target) {
    Optional<WorkloadResult> result = results.workload(workload);
    List<String> problems = new ArrayList<>();
    boolean anyMeasured = false;
    for (PointResult point : result.map(WorkloadResult::points).orElse(List.of())) {
      Sample warden = point.sample(Library.WARDEN);
      anyMeasured |= warden.measured();
      warden.problems().forEach(p -> problems.add(point.point().label() + ": " + p));
    }
    double value = anyMeasured ? problems.size() : Double.NaN;
    add(
        workload,
        target,
        "no violation",
        problems.isEmpty() ? "none" : String.join("; ", problems),
        "",
        value,
        anyMeasured ? problems.size() + " violations" : "n/a",
        v -> v == 0);
  }

  /**
   * Returns Warden's largest (or smallest) value of a metric over the workload's points; NaN if
   * none.
   */
  private double worstWarden(String workload, String key, boolean largest) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (PointResult point :
        results.workload(workload).map(WorkloadResult::points).orElse(List.of())) {
      values.put(point.point().label(), point.warden(key));
    }
    String at = worstKey(values, largest);
    return at == null ? Double.NaN : values.get(at);
  }

  /**
   * Returns the key of the largest (or smallest) value; null when there is none or any value is NaN
   * (a target is judged on every point or not at all).
   */
  private static String worstKey(Map<String, Double> values, boolean largest) {
    String worst = null;
    for (Map.Entry<String, Double> entry : values.entrySet()) {
      if (Double.isNaN(entry.getValue())) {
        return null;
      }
      if (worst == null
          || (largest
              ? entry.getValue() > values.get(worst)
              : entry.getValue() < values.get(worst))) {
        worst = entry.getKey();
      }
    }
    return worst;
  }

  private Optional<PointResult> point(String workload, String label) {
    return results.workload(workload).flatMap(w -> w.point(label));
  }

  /**
   * Adds a verdict on a ratio, charted with its goal. The ratio is judged as shown, to two
   * decimals: 2.00 commands per held lock against 2.00 is "no more", whatever the window's edges
   * added in the fourth decimal.
   */
  private void addRatio(
      String workload,
      String target,
      String goal,
      String warden,
      String redisson,
      double ratio,
      double limit,
      boolean atLeast) {
    double shown = Math.round(ratio * 100) / 100.0;
    Outcome outcome =
        Double.isNaN(ratio)
            ? Outcome.NA
            : (atLeast ? shown >= limit : shown <= limit) ? Outcome.PASS : Outcome.MISS;
    verdicts.add(
        new Verdict(
            workload,
            target,
            goal,
            warden,
            redisson,
            Format.ratio(ratio),
            ratio,
            limit,
            atLeast,
            outcome));
  }

  /** Adds a verdict on one of Warden's own numbers. */
  private void add(
      String workload,
      String target,
      String goal,
      String warden,
      String redisson,
      double value,
      String measured,
      DoublePredicate met) {
    Outcome outcome =
        Double.isNaN(value) ? Outcome.NA : met.test(value) ? Outcome.PASS : Outcome.MISS;
    verdicts.add(
        new Verdict(
            workload, target, goal, warden, redisson, measured, value, Double.NaN, false, outcome));
  }
}
