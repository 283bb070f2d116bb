package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.bench.SectionLog.Section;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineTest {
  private static final long US = 1_000;

  /** A window from 1,000 us to 2,000 us. */
  private static final Window WINDOW = Window.between(1_000 * US, 2_000 * US);

  private static Section section(int process, long calledUs, long acquiredUs, long releasedUs) {
    return new Section(process, 0, calledUs * US, acquiredUs * US, releasedUs * US);
  }

  private static SectionLog log(int process, Section... sections) {
    return new SectionLog(process, sections.length, List.of(sections));
  }

  @Test
  void disjointSectionsOfSeveralProcessesDoNotOverlap() {
    Timeline timeline =
        Timeline.of(
            List.of(
                log(0, section(0, 990, 1_000, 1_010), section(0, 1_020, 1_030, 1_040)),
                log(1, section(1, 995, 1_011, 1_019))),
            WINDOW);

    assertThat(timeline.overlaps()).isZero();
    assertThat(timeline.sections()).isEqualTo(3);
  }

  @Test
  void aSectionThatBeginsBeforeAnEarlierOneEndedIsAnOverlapWhateverTheProcess() {
    Timeline timeline =
        Timeline.of(
            List.of(
                // Process 0 holds from 1,000 to 1,100; process 1 acquires at 1,050 (overlap),
                // process 0 again at 1,090 (overlaps the first, though process 1's ended before).
                log(0, section(0, 990, 1_000, 1_100), section(0, 1_080, 1_090, 1_095)),
                log(1, section(1, 1_000, 1_050, 1_060)),
                log(2, section(2, 1_100, 1_100, 1_110))),
            WINDOW);

    assertThat(timeline.overlaps()).isEqualTo(2);
  }

  @Test
  void overlapsCountOutsideTheWindowTooButAcquisitionsOnlyInsideIt() {
    Timeline timeline =
        Timeline.of(
            List.of(
                log(0, section(0, 100, 200, 300), section(0, 2_500, 2_600, 2_700)),
                log(1, section(1, 100, 250, 260), section(1, 1_400, 1_500, 1_600))),
            WINDOW);

    assertThat(timeline.overlaps()).isEqualTo(1);
    assertThat(timeline.acquisitions()).isEqualTo(1);
    assertThat(timeline.acquisitions(0)).isZero();
    assertThat(timeline.acquisitions(1)).isEqualTo(1);
  }

  @Test
  void sharesGapsAndHolderChangesComeFromTheMergedOrder() {
    // In the window, in order of acquisition: 0, 0, 1, 2, 0, 1 (three of six to process 0).
    Timeline timeline =
        Timeline.of(
            List.of(
                log(
                    0,
                    section(0, 1_000, 1_100, 1_110),
                    section(0, 1_100, 1_120, 1_130),
                    section(0, 1_200, 1_400, 1_410)),
                log(1, section(1, 1_000, 1_150, 1_160), section(1, 1_300, 1_700, 1_710)),
                log(2, section(2, 1_000, 1_170, 1_180))),
            WINDOW);

    assertThat(timeline.acquisitions()).isEqualTo(6);
    assertThat(timeline.acquisitions(0)).isEqualTo(3);
    assertThat(timeline.acquisitions(1)).isEqualTo(2);
    assertThat(timeline.acquisitions(2)).isEqualTo(1);
    assertThat(timeline.successions()).isEqualTo(5); // the first has no predecessor
    assertThat(timeline.holderChanges()).isEqualTo(4); // all but 0 -> 0
    Tally tally = timeline.tally();
    // Gaps: 10, 20, 10, 220, 290 us; the longest is from 1,410 to 1,700.
    assertThat(tally.histogram("gap").getMaxValue()).isEqualTo(290);
    assertThat(tally.histogram("gap").getTotalCount()).isEqualTo(5);
    // Waits: 100, 20, 150, 170, 200, 400 us.
    assertThat(tally.histogram("wait").getMaxValue()).isEqualTo(400);
    assertThat(tally.inRun("process_0")).isEqualTo(3);
    assertThat(tally.inRun("acquisitions")).isEqualTo(6);
    assertThat(tally.inRun("holder_changes")).isEqualTo(4);
    assertThat(tally.inRun("overlaps")).isZero();
  }

  @Test
  void theGapIntoTheWindowCountsFromTheLastReleaseBeforeIt() {
    Timeline timeline =
        Timeline.of(
            List.of(log(0, section(0, 0, 500, 600)), log(1, section(1, 0, 1_100, 1_110))), WINDOW);

    assertThat(timeline.tally().histogram("gap").getMaxValue()).isEqualTo(500);
    assertThat(timeline.holderChanges()).isEqualTo(1);
  }

  @Test
  void aCounterShortOfItsSectionsIsCountedAsLostIncrements() {
    SectionLog lossy =
        new SectionLog(
            0, 1, List.of(section(0, 1_000, 1_001, 1_002), section(0, 1_003, 1_004, 1_005)));

    Timeline timeline = Timeline.of(List.of(lossy, log(1)), WINDOW);

    assertThat(timeline.lostIncrements()).isEqualTo(1);
    assertThat(timeline.tally().inRun("lost_increments")).isEqualTo(1);
  }

  @Test
  void processNumbersMustBeZeroToPMinusOneOnceEach() {
    assertThatThrownBy(() -> Timeline.of(List.of(log(0), log(0)), WINDOW))
        .hasMessageContaining("once each: 0");
    assertThatThrownBy(() -> Timeline.of(List.of(log(0), log(2)), WINDOW))
        .hasMessageContaining(": 2");
  }
}
