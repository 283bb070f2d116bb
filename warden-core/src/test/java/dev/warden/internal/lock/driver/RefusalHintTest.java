package dev.warden.internal.lock.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What an acquisition passes lock-acquire.lua after its refusals (ARGV[9] and ARGV[10]), and when
 * it asks again, in virtual time.
 */
class RefusalHintTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final RefusalHint hint = new RefusalHint(nanos::get);

  private void advanceMillis(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  @Test
  void aFirstAttemptSendsNoHintAndKeepsTheExistsFastPath() {
    assertThat(hint.refusedArgument()).isEqualTo("0");
    assertThat(hint.holderArgument()).isEmpty();
  }

  @Test
  void aRefusalThatReadTheHoldersLeaseNamesTheHolderUntilTheLeaseEnds() {
    long sentAt = hint.now();
    advanceMillis(5); // the reply comes later than the call went out
    assertThat(hint.refusedBy(List.of(0L, 1000L, "77"), sentAt)).isEqualTo(1000);
    assertThat(hint.refusedArgument()).isEqualTo("1");
    assertThat(hint.holderArgument()).isEqualTo("77");

    advanceMillis(994); // counted from when the call was sent: 1 ms left
    assertThat(hint.holderArgument()).isEqualTo("77");
    advanceMillis(1);
    assertThat(hint.holderArgument()).as("the lease may have ended: read it again").isEmpty();
    assertThat(hint.refusedArgument()).isEqualTo("1");
  }

  @Test
  void aHolderLearntBeforeAFailoverIsNotNamedAfterIt() {
    hint.sentUnder("3600000:1");
    hint.refusedBy(List.of(0L, 30_000L, "77"), hint.now());
    hint.sentUnder("3600000:1");
    assertThat(hint.holderArgument()).isEqualTo("77");

    hint.sentUnder("3600000:2"); // a Sentinel failover raised the epoch
    assertThat(hint.holderArgument())
        .as("the new master may hold it with an earlier expiry: read it")
        .isEmpty();
    assertThat(hint.refusedArgument()).isEqualTo("1");
    hint.refusedBy(List.of(0L, 2_000L, "77"), hint.now());
    hint.sentUnder("3600000:2");
    assertThat(hint.holderArgument()).isEqualTo("77");
  }

  @Test
  void aRefusalThatDidNotReadTheLeaseAsksAgainWhenTheKnownLeaseEnds() {
    hint.refusedBy(List.of(0L, 1000L, "77"), hint.now());
    advanceMillis(400);
    long sentAt = hint.now();
    assertThat(hint.refusedBy(List.of(0L, RefusalHint.EXPIRY_KNOWN), sentAt)).isEqualTo(600);
    assertThat(hint.holderArgument()).isEqualTo("77");
  }

  @Test
  void aKnownLeaseThatEndedWhileTheAttemptWasOnItsWayIsAskedAgainAtOnce() {
    hint.refusedBy(List.of(0L, 100L, "77"), hint.now());
    advanceMillis(99);
    long sentAt = hint.now();
    advanceMillis(50);
    // 1 ms, not 0 or less, which would leave the next check to the (backed-off) interval
    assertThat(hint.refusedBy(List.of(0L, RefusalHint.EXPIRY_KNOWN), sentAt)).isEqualTo(1);
    assertThat(hint.holderArgument()).isEmpty();
  }

  @Test
  void aTurnOrAHoldWithoutALeaseForgetsTheHolder() {
    hint.refusedBy(List.of(0L, 1000L, "77"), hint.now());
    assertThat(hint.refusedBy(List.of(0L, 250L), hint.now())).isEqualTo(250);
    assertThat(hint.holderArgument()).isEmpty();

    hint.refusedBy(List.of(0L, 1000L, "78"), hint.now());
    assertThat(hint.refusedBy(List.of(0L, -1L, "79"), hint.now())).isEqualTo(-1);
    assertThat(hint.holderArgument()).isEmpty();
  }

  @Test
  void aLeaseEndingWithinTheMillisecondIsAskedAgainAfterOne() {
    assertThat(hint.refusedBy(List.of(0L, 0L, "77"), hint.now())).isEqualTo(1);
    assertThat(hint.holderArgument()).as("already reached").isEmpty();
  }

  @Test
  void anUnaskedForKnownExpiryLeavesTheWaitToTheInterval() {
    assertThat(hint.refusedBy(List.of(0L, RefusalHint.EXPIRY_KNOWN), hint.now())).isEqualTo(-1);
  }
}
