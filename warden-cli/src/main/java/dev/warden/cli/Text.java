package dev.warden.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Formats numbers, durations and two-column blocks the same way in every command. */
final class Text {
  private Text() {}

  /** Returns {@code n} with thousands separators: {@code 54,321}. */
  static String grouped(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /**
   * Returns a duration given in microseconds in the largest fitting unit: 850 us, 2.31 ms, 1.20 s.
   */
  static String micros(long micros) {
    if (micros < 1_000) {
      return micros + " us";
    }
    if (micros < 1_000_000) {
      return String.format(Locale.ROOT, "%.2f ms", micros / 1_000.0);
    }
    return String.format(Locale.ROOT, "%.2f s", micros / 1_000_000.0);
  }

  /** Returns a duration given in milliseconds: 850 ms, 29.41 s. */
  static String millis(long millis) {
    return millis < 1_000 ? millis + " ms" : String.format(Locale.ROOT, "%.2f s", millis / 1_000.0);
  }

  /**
   * Returns one line per row after {@code indent}, each cell but the last of its row padded to the
   * widest cell of its column, cells two spaces apart.
   */
  static List<String> aligned(String indent, List<List<String>> rows) {
    int columns = rows.stream().mapToInt(List::size).max().orElse(0);
    int[] widths = new int[columns];
    for (List<String> row : rows) {
      for (int c = 0; c < row.size() - 1; c++) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int c = 0; c < row.size(); c++) {
        boolean last = c == row.size() - 1;
        line.append(last ? row.get(c) : pad(row.get(c), widths[c]) + "  ");
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }

  /** Returns {@code text} followed by spaces up to {@code width} characters. */
  static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }

  /**
   * Returns {@code uris} (one URI or several, comma-separated) with every password replaced by
   * {@code ***}: {@code redis://user:secret@host} and {@code redis://secret@host} alike, so that no
   * secret reaches the output.
   */
  static String withoutPassword(String uris) {
    return uris.replaceAll("(^|,|//)([^,/@:]*:)?[^,/@]+@", "$1$2***@");
  }
}
