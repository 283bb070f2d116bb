package dev.warden.bench;

import java.util.List;
import java.util.Map;

/**
 * One of the benchmark's workloads (W1 to W7F): its points, how a measurement becomes metrics, and
 * which metrics the tables and charts show. Implementations are stateless.
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
}
