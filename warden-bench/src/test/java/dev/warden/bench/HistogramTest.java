package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HistogramTest {

  @Test
  void emptyHistogramReportsZeros() {
    Histogram histogram = new Histogram();

    assertThat(histogram.count()).isZero();
    assertThat(histogram.percentile(99)).isZero();
    assertThat(histogram.max()).isZero();
    assertThat(histogram.mean()).isZero();
  }

  @Test
  void smallValuesAreExactWithNearestRankPercentiles() {
    Histogram histogram = new Histogram();
    for (int value = 1; value <= 100; value++) {
      histogram.record(value);
    }

    assertThat(histogram.percentile(50)).isEqualTo(50);
    assertThat(histogram.percentile(99)).isEqualTo(99);
    assertThat(histogram.percentile(100)).isEqualTo(100);
    assertThat(histogram.percentile(0.1)).isEqualTo(1);
    assertThat(histogram.mean()).isEqualTo(50.5);
  }

  @Test
  void largeValuesAreReportedWithinOnePercentAndNeverBelowTheTruth() {
    long[] values = {256, 1_000, 12_345, 999_999, 10_000_000_000L};
    for (long value : values) {
      Histogram histogram = new Histogram();
      histogram.record(value);
      histogram.record(
          value + 1_000_000_000_000L); // a larger maximum, so the cap does not hide the slot top

      long reported = histogram.percentile(50);

      assertThat(reported).isGreaterThanOrEqualTo(value).isLessThanOrEqualTo(value + value / 128);
    }
  }

  @Test
  void percentilesAreCappedAtTheLargestValue() {
    Histogram histogram = new Histogram();
    histogram.record(1_000);

    assertThat(histogram.percentile(50)).isEqualTo(1_000);
  }

  @Test
  void mergedHistogramsEqualOneThatRecordedEverything() {
    Histogram left = new Histogram();
    Histogram right = new Histogram();
    Histogram all = new Histogram();
    for (long value = 0; value < 50_000; value += 7) {
      (value % 2 == 0 ? left : right).record(value);
      all.record(value);
    }

    left.add(right);

    assertThat(left.count()).isEqualTo(all.count());
    assertThat(left.max()).isEqualTo(all.max());
    for (double p : new double[] {1, 25, 50, 90, 99, 99.9, 100}) {
      assertThat(left.percentile(p)).as("p%s", p).isEqualTo(all.percentile(p));
    }
  }

  @Test
  void rejectsNegativeValuesAndPercentilesOutOfRange() {
    Histogram histogram = new Histogram();

    assertThatThrownBy(() -> histogram.record(-1)).hasMessageContaining("-1");
    assertThatThrownBy(() -> histogram.percentile(0)).hasMessageContaining("(0, 100]");
    assertThatThrownBy(() -> histogram.percentile(100.5)).hasMessageContaining("100.5");
  }
}
