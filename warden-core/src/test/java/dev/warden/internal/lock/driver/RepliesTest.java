package dev.warden.internal.lock.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.Settings;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lock scripts' refusals as the waiting reads them: when to ask again. */
class RepliesTest {
  @Test
  void aRefusalWithTheHoldersRemainingLeaseAsksAgainWhenItEnds() {
    assertThat(Replies.attempt(List.of(0L, 250L)).retryAfterMillis()).isEqualTo(250);
  }

  @Test
  void aLeaseThatEndsWithinTheMillisecondIsAskedAgainAfterOneNotLeftUnknown() {
    assertThat(Replies.attempt(List.of(0L, 0L)).retryAfterMillis()).isEqualTo(1);
  }

  @Test
  void aHoldWithoutALeaseLeavesTheWaitUnbounded() {
    assertThat(Replies.attempt(List.of(0L, -1L)).retryAfterMillis()).isEqualTo(-1);
  }

  @Test
  void aQueuedWaiterAsksAgainAtItsHeartbeatOrWhenTheLeaseEndsIfSooner() {
    assertThat(Replies.queuedAttempt(List.of(0L, -1L)).retryAfterMillis())
        .isEqualTo(Settings.HEARTBEAT_MILLIS);
    assertThat(Replies.queuedAttempt(List.of(0L, 0L)).retryAfterMillis()).isEqualTo(1);
    assertThat(Replies.queuedAttempt(List.of(0L, 40L)).retryAfterMillis()).isEqualTo(40);
  }

  @Test
  void anAcquisitionReadsItsTokenAndHoldCount() {
    LockDriver.Attempt attempt = Replies.attempt(List.of(1L, 77L, 2L));
    assertThat(attempt.acquired()).isTrue();
    assertThat(attempt.token()).isEqualTo(77);
    assertThat(attempt.holdCount()).isEqualTo(2);
  }
}
