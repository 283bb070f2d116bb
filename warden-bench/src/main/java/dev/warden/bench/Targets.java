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
 * The targets of issue #5 and how this run measures up to each: a ratio of Warden to Redisson, or
 * one of Warden's own numbers, against a goal. A target whose workload did not run, or whose Warden
 * primitive is not available in this build, is N/A, never PASS.
 */
final class Targets {
  /**
   * W3's "no stall": the longest stretch without an acquisition stays below Warden's re-check
   * interval.
   */
  static final double STALL_MICROS = 200_000;

  /** W3's "independent of waiters": commands per acquisition at T=32 within this factor of T=2. */
  static final double WAITER_COST_TOLERANCE = 1.25;

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
    return List.copyOf(targets.verdicts);
  }

  private void w1() {
    ratio("W1", "T=16", W1Uncontended.PAIRS, 3.0);
    ratio("W1", "T=64", W1Uncontended.PAIRS, 3.0);
    ratio("W1", "T=1", W1Uncontended.PAIRS, 1.3);
    worstOfWarden("W1", "Redis commands per pair (every T)", Costs.COMMANDS, 6.0);
    worstOfWarden("W1", "round trips per pair (every T)", Costs.ROUND_TRIPS, 2.0);
  }

  private void w2() {
    ratio("W2", "T=32", Contended.ACQUISITIONS, 2.0);
    ratio("W2", "T=32", Contended.WAIT_P99, 0.25);
    exclusion("W2");
  }

  private void w3() {
    Optional<WorkloadResult> w2 = results.workload("W2");
    Optional<WorkloadResult> w3 = results.workload("W3");
    // W3 >= 80 % of Warden's own W2 rate, at every T.
    Map<String, Double> shares = new LinkedHashMap<>();
    for (PointResult fair : w3.map(WorkloadResult::points).orElse(List.of())) {
      w2.flatMap(w -> w.point(fair.point().label()))
          .ifPresent(
              plain ->
                  shares.put(
                      fair.point().label(),
                      fair.warden("acquisitions_per_s") / plain.warden("acquisitions_per_s")));
    }
    String at = worstKey(shares, false);
    double worst = at == null ? Double.NaN : shares.get(at);
    addRatio(
        "W3",
        "acquisitions/s vs Warden's W2 (worst T" + (Double.isNaN(worst) ? "" : ": " + at) + ")",
        ">= 0.80x",
        "",
        "",
        worst,
        0.8,
        true);

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
    ratio("W5", "N=1,000", W5LeaseKeeper.COMMANDS_PER_LOCK, 1.0);
    ratio("W5", "N=10,000", W5LeaseKeeper.COMMANDS_PER_LOCK, 1.0);
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

  /** Warden's mark on mutual exclusion: no correctness problem at any point of the workload. */
  private void exclusion(String workload) {
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
        "mutual exclusion held (counter/reads checked)",
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
