package dev.warden.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.Settings;
import dev.warden.internal.base.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The hand-off cap: while others wait that no hand-off reaches, a real release now and then. */
class HandOffRowsTest {
  private static final String LOCK = "warden:{orders}";
  private static final int CAP = Settings.HAND_OFFS_IN_A_ROW;

  private final VirtualTime time = new VirtualTime();
  private final HandOff.Rows rows = new HandOff.Rows(time);

  /** Hands off while allowed, others always waiting; returns how many hand-offs were allowed. */
  private int handOffsUntilARealRelease(String lock) {
    int made = 0;
    while (rows.mayHandOff(lock)) {
      rows.handedOff(lock, true);
      if (++made > 10 * CAP) {
        break; // never refused: the test fails below
      }
    }
    return made;
  }

  @Test
  void withOthersWaitingAtMostTheCapOfHandOffsAreMadeInARowThenMayHandOffIsFalseOnce() {
    assertThat(CAP).isEqualTo(8);
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
    assertThat(rows.mayHandOff(LOCK)).as("the refusal ended the row").isTrue();
  }

  @Test
  void afterTheRealReleaseTheRowStartsAgainFromZero() {
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
  }

  @Test
  void aHandOffThatReportsNobodyElseWaitingEndsTheRow() {
    for (int i = 0; i < CAP - 1; i++) {
      assertThat(rows.mayHandOff(LOCK)).isTrue();
      rows.handedOff(LOCK, true);
    }
    rows.handedOff(LOCK, false);
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
  }

  @Test
  void aRealReleaseEndsTheRow() {
    for (int i = 0; i < CAP - 1; i++) {
      rows.handedOff(LOCK, true);
    }
    rows.realRelease(LOCK);
    assertThat(handOffsUntilARealRelease(LOCK)).isEqualTo(CAP);
  }

  @Test
  void handOffsWhileNobodyElseWaitsAreNeverCapped() {
    for (int i = 0; i < 10 * CAP; i++) {
      assertThat(rows.mayHandOff(LOCK)).isTrue();
      rows.handedOff(LOCK, false);
    }
  }

  @Test
  void eachLockHasItsOwnRow() {
    for (int i = 0; i < CAP; i++) {
      rows.handedOff(LOCK, true);
    }
    assertThat(handOffsUntilARealRelease("warden:{invoices}")).isEqualTo(CAP);
    assertThat(rows.mayHandOff(LOCK)).isFalse();
  }

  @Test
  void aRowThatHasLastedItsTimeEndsEvenBeforeItsTurnsAreUsedUp() {
    rows.handedOff(LOCK, true);
    time.advance(Duration.ofMillis(Settings.HAND_OFF_ROW_MILLIS - 1));
    assertThat(rows.mayHandOff(LOCK)).as("one turn, within the time").isTrue();
    rows.handedOff(LOCK, true);
    time.advance(Duration.ofMillis(1));
    assertThat(rows.mayHandOff(LOCK)).as("two turns, but the row's time is up").isFalse();
    assertThat(rows.mayHandOff(LOCK)).as("the refusal ended the row").isTrue();
  }
}
