package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class DemoOutcomeTest {
  private static final Histogram WAITS = Waits.histogram();

  @Test
  void runWithEveryIncrementKeptAndIncreasingTokensPasses() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 4, 4, new long[] {3, 4, 9, 10}, WAITS, 0, 0);

    assertThat(outcome.failures()).isEmpty();
    assertThat(outcome.verdict()).isEqualTo("VERDICT: PASS");
  }

  @Test
  void lostIncrementsFailNamingBothCounts() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 4, 3, new long[] {1, 2, 3, 4}, WAITS, 0, 0);

    assertThat(outcome.verdict())
        .isEqualTo("VERDICT: FAIL (lost updates: counter is 3 after 4 locked increments)");
  }

  @Test
  void tokenNotGreaterThanItsPredecessorFailsNamingItsPositionAndBothTokens() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 4, 4, new long[] {1, 5, 5, 6}, WAITS, 0, 0);

    assertThat(outcome.failures())
        .containsExactly("fencing token #2 (5) is not greater than the one before it (5)");
    assertThat(DemoOutcome.firstOutOfOrder(new long[] {1, 5, 4})).isEqualTo(2);
    assertThat(DemoOutcome.firstOutOfOrder(new long[] {})).isEqualTo(-1);
  }

  @Test
  void missingTokensFail() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 3, 3, new long[] {1, 2}, WAITS, 0, 0);

    assertThat(outcome.failures()).containsExactly("2 fencing tokens recorded for 3 acquisitions");
  }

  @Test
  void workerProblemsComeFirstInTheVerdict() {
    DemoOutcome outcome =
        new DemoOutcome(
            List.of("worker 2 exited with status 1"), 2, 1, new long[] {1, 2}, WAITS, 0, 0);

    assertThat(outcome.verdict())
        .startsWith("VERDICT: FAIL (worker 2 exited with status 1; lost updates");
  }

  @Test
  void runWithoutAnyAcquisitionFails() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 0, 0, new long[] {}, WAITS, 0, 0);

    assertThat(outcome.verdict()).isEqualTo("VERDICT: FAIL (no worker acquired the lock)");
  }

  @Test
  void reportShowsEachCheckWithAlignedColumns() {
    Histogram waits = Waits.histogram();
    waits.recordValue(90);
    waits.recordValue(2_500);
    DemoOutcome outcome = new DemoOutcome(List.of(), 2, 1, new long[] {7, 8}, waits, 0, 0);

    List<String> report = outcome.report("free, last token issued 8");

    assertThat(report)
        .containsExactly(
            "  acquisitions (expected count)  2",
            "  counter (actual)               1    MISMATCH (-1)",
            "  fencing tokens recorded        2    ok",
            "  tokens strictly increasing     yes  ok",
            "  token range                    7 .. 8",
            "  lock wait p50 / p99 / max      90 us / 2.50 ms / 2.50 ms",
            "  lock after the run             free, last token issued 8");
  }

  @Test
  void aFailoverRunShowsTheLeasesLostAndTheCallsRetriedWithoutChangingTheVerdict() {
    DemoOutcome outcome = new DemoOutcome(List.of(), 2, 2, new long[] {7, 8}, WAITS, 1, 12);

    assertThat(outcome.verdict()).isEqualTo(DemoOutcome.PASS);
    assertThat(outcome.report("free"))
        .contains("  leases lost, told by unlock()  1", "  calls failed and retried       12");
  }
}
