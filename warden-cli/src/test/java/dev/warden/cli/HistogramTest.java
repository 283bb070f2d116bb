package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HistogramTest {

  private static Histogram of(long... values) {
    Histogram histogram = new Histogram();
    for (long value : values) {
      histogram.record(value);
    }
    return histogram;
  }

  @Test
  void percentilesOfOneToOneHundredAreTheirNearestRanks() {
    Histogram histogram = new Histogram();
    for (int value = 100; value >= 1; value--) {
      histogram.record(value);
    }

    assertThat(histogram.count()).isEqualTo(100);
    assertThat(histogram.percentile(50)).isEqualTo(50);
    assertThat(histogram.percentile(99)).isEqualTo(99);
    assertThat(histogram.percentile(100)).isEqualTo(100);
    assertThat(histogram.percentile(0.001)).isEqualTo(1);
    assertThat(histogram.max()).isEqualTo(100);
  }

  @Test
  void percentileRoundsTheRankUp() {
    Histogram histogram = of(10, 20, 30);

    assertThat(histogram.percentile(50)).isEqualTo(20); // rank ceil(1.5) = 2
    assertThat(histogram.percentile(34)).isEqualTo(20); // rank ceil(1.02) = 2
    assertThat(histogram.percentile(33)).isEqualTo(10); // rank ceil(0.99) = 1
  }

  @Test
  void emptyHistogramReportsZero() {
    Histogram histogram = new Histogram();

    assertThat(histogram.percentile(50)).isZero();
    assertThat(histogram.max()).isZero();
    assertThat(histogram.count()).isZero();
  }

  @Test
  void largeValueAloneIsReportedExactlyBecauseTheMaximumCapsItsBucket() {
    assertThat(of(1_234_567).percentile(50)).isEqualTo(1_234_567);
  }

  @Test
  void largeValuesAreNeverUnderstatedAndOverstatedByAtMostOneSixtyFourth() {
    Random random = new Random(42);
    for (int i = 0; i < 10_000; i++) {
      long value = 128 + (long) Math.pow(10, 1 + random.nextDouble() * 14);
      Histogram histogram = of(value, value + 100_000_000_000_000L); // max far above value

      long reported = histogram.percentile(50);

      assertThat(reported).isGreaterThanOrEqualTo(value);
      assertThat(reported - value).isLessThanOrEqualTo(value / 64);
    }
  }

  @Test
  void bucketsTileTheWholeRangeWithoutGapsOrOverlaps() {
    long[] edges = {
      0, 1, 127, 128, 129, 255, 256, 257, 1 << 20, Long.MAX_VALUE / 3, Long.MAX_VALUE
    };
    for (long value : edges) {
      int index = Histogram.indexOf(value);
      assertThat(Histogram.highestValueIn(index))
          .as("top of bucket of %d", value)
          .isGreaterThanOrEqualTo(value);
      if (index > 0) {
        assertThat(Histogram.highestValueIn(index - 1))
            .as("top of bucket below %d", value)
            .isLessThan(value);
      }
    }
    for (long value = 0; value < 100_000; value++) {
      int index = Histogram.indexOf(value);
      assertThat(Histogram.indexOf(value + 1)).isBetween(index, index + 1);
      assertThat(Histogram.highestValueIn(index) >= value).isTrue();
    }
    assertThat(Histogram.highestValueIn(Histogram.indexOf(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void addingHistogramsEqualsRecordingEveryValueInOne() {
    Histogram first = of(1, 500, 70_000);
    Histogram second = of(3, 3, 9_000_000);

    first.add(second);

    assertThat(first).isEqualTo(of(1, 500, 70_000, 3, 3, 9_000_000));
    assertThat(first.count()).isEqualTo(6);
    assertThat(first.max()).isEqualTo(9_000_000);
    assertThat(first.percentile(50)).isEqualTo(3);
  }

  @Test
  void encodedHistogramDecodesToAnEqualOne() {
    Histogram histogram = of(0, 5, 5, 130, 1_000_000, Long.MAX_VALUE);

    String text = histogram.encode();

    assertThat(text).doesNotContain(" ");
    assertThat(Histogram.decode(text)).isEqualTo(histogram);
    assertThat(Histogram.decode(new Histogram().encode())).isEqualTo(new Histogram());
  }

  @Test
  void decodingGarbageFailsNamingTheText() {
    for (String garbage : new String[] {"", "12", "x;1:2", "5;1:", "5;999999:1", "5;1:-1"}) {
      assertThatThrownBy(() -> Histogram.decode(garbage))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("not an encoded histogram: " + garbage);
    }
  }

  @Test
  void negativeValueIsRejectedNamingIt() {
    assertThatThrownBy(() -> new Histogram().record(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value must not be negative: -1");
  }

  @Test
  void percentileOutsideZeroToOneHundredIsRejectedNamingIt() {
    Histogram histogram = of(1);

    assertThatThrownBy(() -> histogram.percentile(0)).hasMessageEndingWith(": 0.0");
    assertThatThrownBy(() -> histogram.percentile(100.5)).hasMessageEndingWith(": 100.5");
    assertThatThrownBy(() -> histogram.percentile(Double.NaN)).hasMessageEndingWith(": NaN");
  }
}
