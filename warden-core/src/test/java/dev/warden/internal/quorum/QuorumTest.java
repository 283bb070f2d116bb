package dev.warden.internal.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QuorumTest {
  @Test
  void theDriftIsOnePercentOfTheLeasePlusTwoMilliseconds() {
    assertThat(Quorum.driftMillis(10_000)).isEqualTo(102);
    assertThat(Quorum.driftMillis(250)).isEqualTo(4);
  }

  @Test
  void theValidityIsTheLeaseMinusTheDriftFromWhenTheCallsWereSent() {
    long started = 1_000_000;
    assertThat(Quorum.validUntil(started, 10_000))
        .isEqualTo(started + TimeUnit.MILLISECONDS.toNanos(10_000 - 102));
  }

  @Test
  void aCallMayTakeATenthOfTheLeaseButAtLeastTenMilliseconds() {
    assertThat(Quorum.callBoundMillis(30_000)).isEqualTo(3_000);
    assertThat(Quorum.callBoundMillis(50)).isEqualTo(10);
  }
}
