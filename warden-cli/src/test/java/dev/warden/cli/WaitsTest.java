package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class WaitsTest {

  @Test
  void encodedHistogramDecodesToAnEqualOneAsOneWordWithoutSpaces() {
    Histogram histogram = Waits.histogram();
    for (long value : new long[] {0, 5, 5, 130, 1_000_000, 3_600_000_000L}) {
      histogram.recordValue(value);
    }

    String text = Waits.encode(histogram);

    assertThat(text).doesNotContain(" ").isNotEmpty();
    assertThat(Waits.decode(text)).isEqualTo(histogram);
    assertThat(Waits.decode(Waits.encode(Waits.histogram())).getTotalCount()).isZero();
  }

  @Test
  void histogramsOfSeveralWorkersAddUpToOneOfEveryWait() {
    Histogram first = Waits.histogram();
    Histogram second = Waits.histogram();
    Histogram all = Waits.histogram();
    for (long value = 1; value <= 20_000; value += 3) {
      (value % 2 == 0 ? first : second).recordValue(value);
      all.recordValue(value);
    }

    first.add(Waits.decode(Waits.encode(second)));

    assertThat(first).isEqualTo(all);
    assertThat(first.getValueAtPercentile(99)).isEqualTo(all.getValueAtPercentile(99));
  }

  @Test
  void percentilesAreExactBelowTwoThousandMicrosAndNeverBelowTheTruthAbove() {
    Histogram histogram = Waits.histogram();
    for (int value = 1; value <= 100; value++) {
      histogram.recordValue(value);
    }
    histogram.recordValue(123_456);

    assertThat(histogram.getValueAtPercentile(50)).isEqualTo(51);
    assertThat(histogram.getMaxValue()).isBetween(123_456L, 123_456L + 124);
  }

  @Test
  void textThatIsNoHistogramIsRefusedNamingIt() {
    assertThatThrownBy(() -> Waits.decode("not-base64!"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not-base64!");
    assertThatThrownBy(() -> Waits.decode("AAAA"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AAAA");
  }
}
