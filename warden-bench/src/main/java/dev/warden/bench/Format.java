package dev.warden.bench;

import java.util.Locale;

/**
 * Formats the benchmark's numbers one way everywhere (console, Markdown, charts): counts with
 * thousands separators, rates in compact form, durations given in microseconds in a fitting unit,
 * and ratios. Every method prints "n/a" for NaN, the benchmark's mark for "not measured".
 */
final class Format {
  private Format() {}

  /**
   * Returns a whole number with thousands separators, {@code 12,345}; fractions below 100 keep one
   * or two digits.
   */
  static String number(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    double magnitude = Math.abs(value);
    if (magnitude >= 100 || value == Math.rint(value)) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    return String.format(Locale.ROOT, magnitude >= 10 ? "%.1f" : "%.2f", value);
  }

  /**
   * Returns a number in at most four significant characters: {@code 950}, {@code 12.3k}, {@code
   * 1.2M}.
   */
  static String compact(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    double magnitude = Math.abs(value);
    if (magnitude >= 1e6) {
      return String.format(Locale.ROOT, magnitude >= 1e7 ? "%.0fM" : "%.1fM", value / 1e6);
    }
    if (magnitude >= 1e3) {
      return String.format(Locale.ROOT, magnitude >= 1e4 ? "%.0fk" : "%.1fk", value / 1e3);
    }
    return number(value);
  }

  /** Returns a duration given in microseconds: {@code 850 us}, {@code 2.31 ms}, {@code 1.20 s}. */
  static String micros(double micros) {
    if (Double.isNaN(micros)) {
      return "n/a";
    }
    return micros >= 1e6
        ? String.format(Locale.ROOT, "%.2f s", micros / 1e6)
        : micros >= 1e3
            ? String.format(Locale.ROOT, "%.2f ms", micros / 1e3)
            : String.format(Locale.ROOT, "%.0f us", micros);
  }

  /** Returns a ratio: {@code 2.13x}. */
  static String ratio(double ratio) {
    return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2fx", ratio);
  }

  /**
   * Returns {@code text} padded with spaces to {@code width}, on the right or (numbers) the left.
   */
  static String pad(String text, int width, boolean alignRight) {
    if (text.length() >= width) {
      return text;
    }
    String spaces = " ".repeat(width - text.length());
    return alignRight ? spaces + text : text + spaces;
  }
}
