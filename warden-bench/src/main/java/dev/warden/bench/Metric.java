package dev.warden.bench;

/**
 * One number a workload reports, as tables and charts show it: its key in the results file, a
 * label, how to format it, and which direction is better (for reading a ratio).
 *
 * @param key the name in {@link Sample#metrics()} and in the JSON file, e.g. {@code pairs_per_s}
 * @param label a short label for tables and charts
 * @param unit how the value is formatted
 * @param higherIsBetter whether a larger value is the better one
 * @param charted whether the workload's chart has a panel for it
 */
record Metric(String key, String label, Unit unit, boolean higherIsBetter, boolean charted) {

  /** How a metric's value is written. */
  enum Unit {
    /** Operations per second, compact: 12.3k. */
    RATE,
    /** A duration in microseconds: 850 us, 2.31 ms. */
    MICROS,
    /** A plain number: 6.00, 1,234. */
    NUMBER,
    /** A percentage: a share of one CPU core, of the acquisitions. */
    PERCENT;

    String format(double value) {
      return switch (this) {
        case RATE -> Format.compact(value) + "/s";
        case MICROS -> Format.micros(value);
        case NUMBER -> Format.number(value);
        case PERCENT -> Double.isNaN(value) ? "n/a" : Format.number(value) + " %";
      };
    }
  }

  static Metric higher(String key, String label, Unit unit) {
    return new Metric(key, label, unit, true, false);
  }

  static Metric lower(String key, String label, Unit unit) {
    return new Metric(key, label, unit, false, false);
  }

  /** Returns this metric with a panel in its workload's chart. */
  Metric inChart() {
    return new Metric(key, label, unit, higherIsBetter, true);
  }

  /** Returns the value formatted in this metric's unit. */
  String format(double value) {
    return unit.format(value);
  }

  /** Returns the value in at most about five characters, for chart labels: 26k, 5.3 ms, 6.0. */
  String formatShort(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return switch (unit) {
      case RATE -> Format.compact(value);
      case MICROS ->
          value >= 1e6
              ? String.format(java.util.Locale.ROOT, "%.1f s", value / 1e6)
              : value >= 1e3
                  ? String.format(java.util.Locale.ROOT, "%.1f ms", value / 1e3)
                  : String.format(java.util.Locale.ROOT, "%.0f us", value);
      case NUMBER, PERCENT -> Format.compact(value) + (unit == Unit.PERCENT ? "%" : "");
    };
  }
}
