package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SvgChartTest {
  private static final Metric RATE = Metric.higher("pairs_per_s", "pairs/s", Metric.Unit.RATE);

  @Test
  void drawsTwoBarsPerPointAndNaForWhatWasNotMeasured() {
    String svg =
        SvgChart.bars(
            "W1 <uncontended> & co",
            List.of(
                new SvgChart.Panel(
                    RATE,
                    List.of(
                        new SvgChart.Bars("T=1", 5_000, 4_000),
                        new SvgChart.Bars("T=4", Double.NaN, 9_000)))));

    assertThat(svg).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"").endsWith("</svg>\n");
    assertThat(svg).contains("W1 &lt;uncontended&gt; &amp; co");
    assertThat(count(svg, "fill=\"" + SvgChart.WARDEN_COLOR + "\"><title>")).isEqualTo(1);
    assertThat(count(svg, "fill=\"" + SvgChart.REDISSON_COLOR + "\"><title>")).isEqualTo(2);
    assertThat(svg).contains(">n/a</text>").contains(">T=1</text>").contains(">T=4</text>");
  }

  @Test
  void ratioScaleIsLogarithmicAroundOneAndClamped() {
    assertThat(SvgChart.ratioX(1, 800)).isEqualTo(400);
    assertThat(SvgChart.ratioX(4, 800)).isEqualTo(600);
    assertThat(SvgChart.ratioX(0.25, 800)).isEqualTo(200);
    assertThat(SvgChart.ratioX(1_000, 800)).isEqualTo(800);
    assertThat(SvgChart.ratioX(0.0001, 800)).isEqualTo(0);
  }

  @Test
  void axisStepsAreOneTwoOrFiveTimesAPowerOfTen() {
    assertThat(SvgChart.niceStep(6_500)).isEqualTo(10_000);
    assertThat(SvgChart.niceStep(1_500)).isEqualTo(2_000);
    assertThat(SvgChart.niceStep(2_000)).isEqualTo(2_000);
    assertThat(SvgChart.niceStep(0.3)).isEqualTo(0.5);
    assertThat(SvgChart.niceStep(0)).isEqualTo(1);
  }

  @Test
  void ratioChartHasARowPerTarget() {
    String svg =
        SvgChart.ratios(
            "targets",
            List.of(
                new SvgChart.Ratio("W1 T=16 pairs/s", 3.2, 3.0, true, Targets.Outcome.PASS),
                new SvgChart.Ratio("W3 fair", Double.NaN, 0.8, true, Targets.Outcome.NA)));

    assertThat(svg)
        .contains(">W1 T=16 pairs/s</text>")
        .contains("3.20x  PASS")
        .contains("n/a  N/A");
  }

  private static int count(String text, String part) {
    return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
  }
}
