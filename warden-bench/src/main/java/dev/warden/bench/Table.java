package dev.warden.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A table of text cells that prints as aligned plain text (the console) or as a Markdown table
 * (summary.md). Columns after the first {@code textColumns} are numbers and align right.
 */
final class Table {
  private final List<String> header;
  private final int textColumns;
  private final List<List<String>> rows = new ArrayList<>();

  Table(int textColumns, String... header) {
    this.header = List.of(header);
    this.textColumns = textColumns;
  }

  /**
   * Adds a row.
   *
   * @throws IllegalArgumentException if it has not one cell per column
   */
  Table row(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "a row needs " + header.size() + " cells, not " + cells.length + ": " + List.of(cells));
    }
    rows.add(List.of(cells));
    return this;
  }

  /** Returns the table as aligned lines, each starting with {@code indent}. */
  List<String> text(String indent) {
    int[] widths = new int[header.size()];
    for (List<String> row : allRows()) {
      for (int c = 0; c < row.size(); c++) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : allRows()) {
      StringBuilder line = new StringBuilder(indent);
      for (int c = 0; c < row.size(); c++) {
        line.append(Format.pad(row.get(c), widths[c], c >= textColumns)).append("  ");
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }

  /** Returns the table in Markdown, numbers right-aligned, one line per row. */
  List<String> markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("| " + String.join(" | ", header) + " |");
    StringBuilder rule = new StringBuilder("|");
    for (int c = 0; c < header.size(); c++) {
      rule.append(c >= textColumns ? "---:|" : "---|");
    }
    lines.add(rule.toString());
    for (List<String> row : rows) {
      lines.add(
          "| "
              + String.join(" | ", row.stream().map(cell -> cell.replace("|", "\\|")).toList())
              + " |");
    }
    return lines;
  }

  private List<List<String>> allRows() {
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    return all;
  }
}
