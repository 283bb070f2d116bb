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
 * How the targets of the issues measure up in one run. Each workload declares its own targets
 * ({@link Workload#judge}) with the verdicts this class offers: a ratio of Warden to Redisson, one
 * of Warden's own numbers against a limit, a share of another workload's figure, no correctness
 * problem. A target whose workload did not run, or whose Warden primitive is not available in this
 * build, is N/A, never PASS. Not thread-safe: one per evaluation.
 */
final class Targets {

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

  /** Judges every workload's targets against the results, in the workloads' order. */
  static List<Verdict> evaluate(Results results) {
    return evaluate(results, Workloads.ALL);
  }

  /** Judges the targets of {@code workloads} against the results, in that order. */
  static List<Verdict> evaluate(Results results, List<Workload> workloads) {
    Targets targets = new Targets(results);
    for (Workload workload : workloads) {
      workload.judge(targets.new Of(workload.id()));
    }
    return List.copyOf(targets.verdicts);
  }

  /** The verdicts a workload may give on its own targets, under its id. */
  final class Of {
    private final String workload;

    private Of(String workload) {
      this.workload = workload;
    }

    /** Returns whether this run put a round trip between the clients and Redis. */
    boolean withRoundTrip() {
      Object roundTrip = results.about().get("round_trip_ms");
      return roundTrip instanceof Number ms && ms.doubleValue() > 0;
    }

    /** Returns this run's results, e.g. for the ceiling. */
    Results results() {
      return results;
    }

    /** Returns this workload's point with that label, if it ran. */
    Optional<PointResult> point(String label) {
      return results.workload(workload).flatMap(w -> w.point(label));
    }

    /** Returns another workload's point with that label, if it ran. */
    Optional<PointResult> point(String otherWorkload, String label) {
      return results.workload(otherWorkload).flatMap(w -> w.point(label));
    }

    /** Returns this workload's points, in order (none if it did not run). */
    List<PointResult> points() {
      return results.workload(workload).map(WorkloadResult::points).orElse(List.of());
    }

    /**
     * A ratio target: Warden over Redisson at one point, at least (higher is better) or at most.
     */
    void ratio(String label, Metric metric, double goal) {
      Optional<PointResult> point = point(label);
      addRatio(
          label + " " + metric.label(),
          (metric.higherIsBetter() ? ">= " : "<= ") + Format.ratio(goal) + " Redisson",
          point.map(p -> p.sample(Library.WARDEN).format(metric)).orElse("not run"),
          point.map(p -> p.sample(Library.REDISSON).format(metric)).orElse("not run"),
          point.map(p -> p.ratio(metric.key())).orElse(Double.NaN),
          goal,
          metric.higherIsBetter());
    }

    /**
     * A target on one of Warden's own figures at one point, judged to one decimal (a window's edges
     * cut renewal passes and add background commands).
     */
    void limit(String label, Metric metric, String goal, DoublePredicate met) {
      Optional<PointResult> point = point(label);
      double value = point.map(p -> p.warden(metric.key())).orElse(Double.NaN);
      add(
          label + " " + metric.label(),
          goal,
          metric.format(value),
          point.map(p -> p.sample(Library.REDISSON).format(metric)).orElse(""),
          value,
          metric.format(value),
          v -> met.test(Math.round(v * 10) / 10.0));
    }

    /**
     * A target on Warden's own worst count per operation over this workload's points, judged to one
     * decimal: the window's edges and background traffic (renewals, pings) add hundredths.
     */
    void worstOfWarden(String target, Metric metric, double limit) {
      double worst = worstWarden(metric.key(), !metric.higherIsBetter());
      List<PointResult> points = points();
      String redisson =
          points.isEmpty()
              ? ""
              : points.get(0).sample(Library.REDISSON).format(metric)
                  + " at "
                  + points.get(0).point().label();
      add(
          target,
          "<= " + Format.number(limit),
          metric.format(worst),
          redisson,
          worst,
          metric.format(worst),
          v -> Math.round(v * 10) / 10.0 <= limit);
    }

    /**
     * A target on this workload's rate against another workload's at every point of the same label:
     * at least {@code share} of it at the worst point ({@code what} names the points).
     */
    void versus(String other, Metric metric, double share, String what) {
      Optional<WorkloadResult> otherResult = results.workload(other);
      Map<String, Double> shares = new LinkedHashMap<>();
      for (PointResult point : points()) {
        otherResult
            .flatMap(w -> w.point(point.point().label()))
            .ifPresent(
                otherPoint ->
                    shares.put(
                        point.point().label(),
                        point.warden(metric.key()) / otherPoint.warden(metric.key())));
      }
      String at = worstKey(shares, false);
      double worst = at == null ? Double.NaN : shares.get(at);
      addRatio(
          metric.label()
              + " vs Warden's "
              + other
              + " (worst "
              + what
              + (Double.isNaN(worst) ? "" : ": " + at)
              + ")",
          ">= " + Format.ratio(share),
          "",
          "",
          worst,
          share,
          true);
    }

    /** Warden's mark on mutual exclusion: no correctness problem at any point of the workload. */
    void exclusion(String target) {
      List<String> problems = new ArrayList<>();
      boolean anyMeasured = false;
      for (PointResult point : points()) {
        Sample warden = point.sample(Library.WARDEN);
        anyMeasured |= warden.measured();
        warden.problems().forEach(p -> problems.add(point.point().label() + ": " + p));
      }
      double value = anyMeasured ? problems.size() : Double.NaN;
      add(
          target,
          "no violation",
          problems.isEmpty() ? "none" : String.join("; ", problems),
          "",
          value,
          anyMeasured ? problems.size() + " violations" : "n/a",
          v -> v == 0);
    }

    /**
     * Returns Warden's largest (or smallest) value of a metric over this workload's points; NaN if
     * none, or if any is NaN.
     */
    double worstWarden(String key, boolean largest) {
      Map<String, Double> values = new LinkedHashMap<>();
      for (PointResult point : points()) {
        values.put(point.point().label(), point.warden(key));
      }
      String at = worstKey(values, largest);
      return at == null ? Double.NaN : values.get(at);
    }

    /**
     * Adds a verdict on a ratio, charted with its goal. The ratio is judged as shown, to two
     * decimals: 2.00 commands per held lock against 2.00 is "no more", whatever the window's edges
     * added in the fourth decimal.
     */
    void addRatio(
        String target,
        String goal,
        String warden,
        String redisson,
        double ratio,
        double limit,
        boolean atLeast) {
      addRatio(target, goal, warden, redisson, ratio, Format.ratio(ratio), limit, atLeast);
    }

    /**
     * Adds a verdict on a ratio like the other {@code addRatio}, with {@code measured} shown for it
     * (e.g. the ratio and, beside it, another figure not judged).
     */
    void addRatio(
        String target,
        String goal,
        String warden,
        String redisson,
        double ratio,
        String measured,
        double limit,
        boolean atLeast) {
      double shown = Math.round(ratio * 100) / 100.0;
      Outcome outcome =
          Double.isNaN(ratio)
              ? Outcome.NA
              : (atLeast ? shown >= limit : shown <= limit) ? Outcome.PASS : Outcome.MISS;
      verdicts.add(
          new Verdict(
              workload, target, goal, warden, redisson, measured, ratio, limit, atLeast, outcome));
    }

    /** Adds a verdict on one of Warden's own numbers. */
    void add(
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
              workload,
              target,
              goal,
              warden,
              redisson,
              measured,
              value,
              Double.NaN,
              false,
              outcome));
    }
  }

  /**
   * Returns the key of the largest (or smallest) value; null when there is none or any value is NaN
   * (a target is judged on every point or not at all).
   */
  static String worstKey(Map<String, Double> values, boolean largest) {
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
}
