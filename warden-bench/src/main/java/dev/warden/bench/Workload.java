package dev.warden.bench;

import java.util.List;
import java.util.Map;

/**
 * One of the benchmark's workloads (W1 to W10): its points, how a measurement becomes metrics,
 * which metrics the tables and charts show, and its targets. Implementations are stateless.
 */
interface Workload {

  /** Returns the short name, {@code W1} to {@code W7} and {@code W7F}. */
  String id();

  /** Returns what the workload does, in a line. */
  String title();

  /** Returns the points to measure with these settings, in order. */
  List<Point> points(Settings settings);

  /**
   * Returns the metrics of one measurement, in report order; adds what a correctness check found to
   * {@code problems}.
   */
  Map<String, Double> metrics(Measurement measurement, List<String> problems);

  /**
   * Returns the metrics that progress lines and the ratio tables show, most important first; those
   * marked {@link Metric#inChart()} get a panel in the workload's chart.
   */
  List<Metric> headline();

  /**
   * Declares this workload's targets, the issues' goals for it, and judges them on this run's
   * results (a target of a workload that did not run is N/A). None by default.
   */
  default void judge(Targets.Of targets) {}
}
