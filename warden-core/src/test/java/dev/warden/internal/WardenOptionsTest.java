package dev.warden.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.Replication;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/** What {@link WardenRuntime#start} refuses before it opens anything. */
class WardenOptionsTest {
  /** Nothing listens there (a privileged port): connecting would fail with a WardenException. */
  private static final String NOBODY = "redis://127.0.0.1:1";

  @Test
  void aReplicationTimeoutNotBelowTheCommandTimeoutIsRefusedBeforeConnecting() {
    WardenOptions options = new WardenOptions();
    options.uri(NOBODY);
    options.commandTimeout(Duration.ofSeconds(1));
    options.replication(Replication.awaitReplicas(1, Duration.ofSeconds(1)));

    assertThatThrownBy(() -> WardenRuntime.start(options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("the replication timeout must be below the command timeout (PT1S)");
  }

  @Test
  void anIdleExpiryBeyondTenThousandYearsIsRefusedNamingIt() {
    // beyond, the scripts' PEXPIRE fails (from 10^17 ms Lua writes the number as 1e+17; past
    // 2^63 ms less the clock, 'invalid expire time'), in the leased semaphore's scripts after they
    // have leased the permit; "forever" overflowed toMillis at build() (ArithmeticException)
    for (Duration forever :
        new Duration[] {
          Duration.ofSeconds(100_000_000_000_000L), ChronoUnit.FOREVER.getDuration()
        }) {
      assertThatThrownBy(() -> new WardenOptions().synchronizerIdleExpiry(forever))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("idleExpiry must be at most 10000 years (315360000000000 ms): " + forever);
    }
    new WardenOptions().synchronizerIdleExpiry(Duration.ofDays(365L * 10_000));
  }

  @Test
  void aMaxHoldTimeBeyondAHundredYearsIsRefusedNamingIt() {
    // beyond, its nanoseconds overflow: ArithmeticException at build() from about 292 years, and
    // below that a hold's start plus the limit could wrap, ending every hold at once
    for (Duration tooLong :
        new Duration[] {Duration.ofDays(36_501), ChronoUnit.FOREVER.getDuration()}) {
      assertThatThrownBy(() -> new WardenOptions().maxHoldTime(tooLong))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxHoldTime must be at most 100 years (PT876000H): " + tooLong);
    }
    new WardenOptions().maxHoldTime(Duration.ofDays(36_500));
  }

  @Test
  void anIdleExpiryBelowTwiceTheCommandTimeoutIsRefusedBeforeConnecting() {
    // a call retried after a lost reply runs up to two command timeouts after its first run; its
    // replay answers 'done' (its marker is there) even if what it set has expired since:
    // trySetCount true for a latch already gone, and so open
    WardenOptions options = new WardenOptions();
    options.uri(NOBODY);
    options.commandTimeout(Duration.ofSeconds(5));
    options.synchronizerIdleExpiry(Duration.ofSeconds(9));

    assertThatThrownBy(() -> WardenRuntime.start(options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "idleExpiry must be at least twice the command timeout (PT10S), so that a call"
                + " retried after a lost reply finds what it changed still there: PT9S");
  }

  @Test
  void oneAddressKindMustBeSetAndOnlyOne() {
    WardenOptions neither = new WardenOptions();
    assertThatThrownBy(() -> WardenRuntime.start(neither))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("uri or cluster seeds must be set before build()");

    WardenOptions both = new WardenOptions();
    both.uri(NOBODY);
    both.cluster(NOBODY);
    assertThatThrownBy(() -> WardenRuntime.start(both))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("set either uri(...) or cluster(...), not both");
  }
}
