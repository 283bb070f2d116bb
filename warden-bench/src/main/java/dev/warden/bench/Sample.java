package dev.warden.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one library did at one point of a workload: its metrics, the Redis commands of its window,
 * the correctness problems seen (a lost increment, a reader that saw half a write), or why there
 * are no metrics.
 *
 * @param status whether it was measured
 * @param note why not, for {@link Status#UNAVAILABLE} and {@link Status#FAILED}; else empty
 * @param metrics metric key to value, in report order
 * @param commandCalls calls per command in the window (INFO commandstats), scripts included
 * @param problems correctness problems; empty when every check held
 */
record Sample(
    Status status,
    String note,
    Map<String, Double> metrics,
    Map<String, Long> commandCalls,
    List<String> problems) {

  /** Whether a sample has numbers. */
  enum Status {
    MEASURED,
    /** The library does not offer the primitive in this build (e.g. Warden's fair lock, today). */
    UNAVAILABLE,
    /** The run threw, or its threads did not stop. */
    FAILED
  }

  Sample {
    metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    commandCalls = Collections.unmodifiableMap(new TreeMap<>(commandCalls));
    problems = List.copyOf(problems);
  }

  static Sample measured(
      Map<String, Double> metrics, Map<String, Long> commandCalls, List<String> problems) {
    return new Sample(Status.MEASURED, "", metrics, commandCalls, problems);
  }

  static Sample unavailable(String why) {
    return new Sample(Status.UNAVAILABLE, why, Map.of(), Map.of(), List.of());
  }

  static Sample failed(String why) {
    return new Sample(Status.FAILED, why, Map.of(), Map.of(), List.of());
  }

  /** Returns the metric's value, or NaN when it was not measured. */
  double get(String key) {
    Double value = metrics.get(key);
    return value == null ? Double.NaN : value;
  }

  boolean measured() {
    return status == Status.MEASURED;
  }

  /**
   * Returns the metric formatted, or "n/a" (not available) or "failed" for a sample without
   * numbers.
   */
  String format(Metric metric) {
    if (!measured()) {
      return status == Status.UNAVAILABLE ? "n/a" : "failed";
    }
    return metric.format(get(metric.key()));
  }

  /** Returns the results file's form of this sample. */
  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("status", status.name().toLowerCase(Locale.ROOT));
    if (!note.isEmpty()) {
      json.put("note", note);
    }
    json.put("metrics", metrics);
    json.put("commandstats_in_window", commandCalls);
    json.put("problems", problems);
    return json;
  }
}
