package dev.warden.bench;

import java.util.List;
import java.util.Locale;

/**
 * Draws the benchmark's charts as standalone SVG text, without a charting library: bar charts of
 * Warden against Redisson (one panel per metric, a pair of bars per point) and the chart of target
 * ratios. A value that was not measured (NaN) is drawn as "n/a" instead of a bar. Stateless.
 */
final class SvgChart {
  static final String WARDEN_COLOR = "#2563eb";
  static final String REDISSON_COLOR = "#ea580c";
  private static final String FONT = "font-family=\"Helvetica, Arial, sans-serif\"";
  private static final int PANEL_WIDTH = 330;
  private static final int PANEL_HEIGHT = 250;
  private static final int PANELS_PER_ROW = 3;
  private static final int TOP = 56;
  private static final int PLOT_LEFT = 52;
  private static final int PLOT_TOP = 30;
  private static final int PLOT_HEIGHT = 160;

  private SvgChart() {}

  /** One pair of bars: a point's label and both libraries' values (NaN: not measured). */
  record Bars(String label, double warden, double redisson) {}

  /** One panel: a metric over the points. */
  record Panel(Metric metric, List<Bars> bars) {}

  /** One row of the ratio chart. */
  record Ratio(
      String label, double ratio, double goal, boolean higherIsBetter, Targets.Outcome outcome) {}

  /** Returns a chart titled {@code title} with the panels side by side, three to a row. */
  static String bars(String title, List<Panel> panels) {
    int columns = Math.max(1, Math.min(PANELS_PER_ROW, panels.size()));
    int rows = (panels.size() + PANELS_PER_ROW - 1) / PANELS_PER_ROW;
    int width = columns * PANEL_WIDTH + 20;
    int height = TOP + Math.max(1, rows) * PANEL_HEIGHT + 10;
    StringBuilder svg = open(width, height);
    text(svg, 16, 26, 16, "start", "bold", title);
    legend(svg, 16, 44);
    for (int i = 0; i < panels.size(); i++) {
      int x = 10 + (i % PANELS_PER_ROW) * PANEL_WIDTH;
      int y = TOP + (i / PANELS_PER_ROW) * PANEL_HEIGHT;
      panel(svg, x, y, panels.get(i));
    }
    return svg.append("</svg>\n").toString();
  }

  private static void panel(StringBuilder svg, int x, int y, Panel panel) {
    Metric metric = panel.metric();
    String better = metric.higherIsBetter() ? "higher is better" : "lower is better";
    text(
        svg,
        x + PANEL_WIDTH / 2,
        y + 16,
        13,
        "middle",
        "bold",
        metric.label() + " (" + better + ")");
    double top = 0;
    for (Bars bars : panel.bars()) {
      top = Math.max(top, Math.max(finiteOrZero(bars.warden()), finiteOrZero(bars.redisson())));
    }
    double step = niceStep(top / 4);
    top = 4 * step;
    int plotX = x + PLOT_LEFT;
    int plotY = y + PLOT_TOP;
    int plotWidth = PANEL_WIDTH - PLOT_LEFT - 16;
    for (int tick = 0; tick <= 4; tick++) {
      double value = top * tick / 4;
      double tickY = plotY + PLOT_HEIGHT - PLOT_HEIGHT * tick / 4.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>%n",
              plotX,
              tickY,
              plotX + plotWidth,
              tickY));
      text(
          svg,
          plotX - 6,
          (int) Math.round(tickY + 4),
          10,
          "end",
          "normal",
          metric.formatShort(value));
    }
    int groups = Math.max(1, panel.bars().size());
    double slot = (double) plotWidth / groups;
    double barWidth = Math.min(36, slot * 0.32);
    for (int g = 0; g < panel.bars().size(); g++) {
      Bars bars = panel.bars().get(g);
      double center = plotX + slot * (g + 0.5);
      bar(svg, center - barWidth - 2, barWidth, plotY, top, bars.warden(), WARDEN_COLOR, metric);
      bar(svg, center + 2, barWidth, plotY, top, bars.redisson(), REDISSON_COLOR, metric);
      // A label wider than its slot goes on two lines, split at its first space.
      String label = bars.label();
      int space = label.indexOf(' ');
      boolean wrap = space > 0 && label.length() * 6.5 > slot;
      text(
          svg,
          (int) Math.round(center),
          plotY + PLOT_HEIGHT + 16,
          11,
          "middle",
          "normal",
          wrap ? label.substring(0, space) : label);
      if (wrap) {
        text(
            svg,
            (int) Math.round(center),
            plotY + PLOT_HEIGHT + 30,
            11,
            "middle",
            "normal",
            label.substring(space + 1));
      }
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#6b7280\"/>%n",
            plotX,
            plotY + PLOT_HEIGHT,
            plotX + plotWidth,
            plotY + PLOT_HEIGHT));
  }

  private static void bar(
      StringBuilder svg,
      double x,
      double width,
      int plotY,
      double top,
      double value,
      String color,
      Metric metric) {
    int baseline = plotY + PLOT_HEIGHT;
    int labelX = (int) Math.round(x + width / 2);
    if (Double.isNaN(value)) {
      text(svg, labelX, baseline - 4, 10, "middle", "normal", "n/a");
      return;
    }
    double height = top == 0 ? 0 : PLOT_HEIGHT * Math.max(0, value) / top;
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>%n",
            x,
            baseline - height,
            width,
            height,
            color,
            escape(metric.format(value))));
    text(
        svg,
        labelX,
        (int) Math.round(baseline - height - 4),
        9,
        "middle",
        "normal",
        metric.formatShort(value));
  }

  /**
   * Returns the ratio chart: a row per target, a bar from 1x to Warden's ratio on a log scale from
   * 1/16x to 16x, green when the target is met, red when missed, and the goal as a black tick.
   */
  static String ratios(String title, List<Ratio> rows) {
    int labelWidth = 420;
    int plotWidth = 420;
    int rowHeight = 24;
    int width = labelWidth + plotWidth + 130;
    int height = 70 + rows.size() * rowHeight + 30;
    StringBuilder svg = open(width, height);
    text(svg, 16, 26, 16, "start", "bold", title);
    text(
        svg,
        16,
        44,
        11,
        "start",
        "normal",
        "Warden / Redisson (log scale); bar: measured, tick: goal; green PASS, red MISS, grey N/A");
    int plotTop = 60;
    int plotBottom = plotTop + rows.size() * rowHeight;
    for (double mark : new double[] {1 / 16.0, 1 / 4.0, 1, 4, 16}) {
      double x = labelWidth + ratioX(mark, plotWidth);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n",
              x,
              plotTop - 4,
              x,
              plotBottom,
              mark == 1 ? "#374151" : "#e5e7eb"));
      text(
          svg,
          (int) Math.round(x),
          plotBottom + 16,
          10,
          "middle",
          "normal",
          mark < 1 ? "1/" + Math.round(1 / mark) + "x" : Math.round(mark) + "x");
    }
    for (int i = 0; i < rows.size(); i++) {
      Ratio row = rows.get(i);
      int y = plotTop + i * rowHeight;
      text(svg, labelWidth - 8, y + 16, 11, "end", "normal", row.label());
      double one = labelWidth + ratioX(1, plotWidth);
      if (!Double.isNaN(row.ratio())) {
        double end = labelWidth + ratioX(row.ratio(), plotWidth);
        String color =
            row.outcome() == Targets.Outcome.PASS
                ? "#16a34a"
                : row.outcome() == Targets.Outcome.MISS ? "#dc2626" : "#9ca3af";
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                Math.min(one, end),
                y + 5,
                Math.abs(end - one),
                rowHeight - 10,
                color));
      }
      if (!Double.isNaN(row.goal())) {
        double goal = labelWidth + ratioX(row.goal(), plotWidth);
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#111827\" stroke-width=\"2\"/>%n",
                goal,
                y + 2,
                goal,
                y + rowHeight - 2));
      }
      String verdict = row.outcome() == Targets.Outcome.NA ? "N/A" : row.outcome().name();
      text(
          svg,
          labelWidth + plotWidth + 10,
          y + 16,
          11,
          "start",
          "normal",
          Format.ratio(row.ratio()) + "  " + verdict);
    }
    return svg.append("</svg>\n").toString();
  }

  /** Returns the x offset of a ratio on the log scale from 1/16x (0) to 16x (plot width). */
  static double ratioX(double ratio, int plotWidth) {
    double clamped = Math.max(1 / 16.0, Math.min(16, ratio));
    return (Math.log(clamped) / Math.log(2) + 4) / 8 * plotWidth;
  }

  /** Returns the smallest of 1, 2 or 5 times a power of ten that is at least {@code value}. */
  static double niceStep(double value) {
    if (!(value > 0)) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 5}) {
      if (step * power >= value * (1 - 1e-12)) {
        return step * power;
      }
    }
    return 10 * power;
  }

  private static double finiteOrZero(double value) {
    return Double.isFinite(value) ? value : 0;
  }

  private static StringBuilder open(int width, int height) {
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
            width,
            height,
            width,
            height));
    svg.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
    return svg;
  }

  private static void legend(StringBuilder svg, int x, int y) {
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
            x,
            y - 10,
            WARDEN_COLOR));
    text(svg, x + 16, y, 12, "start", "normal", "Warden");
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
            x + 80,
            y - 10,
            REDISSON_COLOR));
    text(svg, x + 96, y, 12, "start", "normal", "Redisson");
  }

  private static void text(
      StringBuilder svg, int x, int y, int size, String anchor, String weight, String content) {
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" %s font-size=\"%d\" text-anchor=\"%s\" font-weight=\"%s\" fill=\"#111827\">%s</text>%n",
            x,
            y,
            FONT,
            size,
            anchor,
            weight,
            escape(content)));
  }

  /** Escapes text for SVG (XML) content and attributes. */
  static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
