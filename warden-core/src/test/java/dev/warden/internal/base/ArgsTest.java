package dev.warden.internal.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ArgsTest {
  @Test
  void aZeroWaitIsAllowedAndANegativeOneIsRejectedWithItsValue() {
    assertThat(Args.waitNanos("waitTime", 0, TimeUnit.SECONDS)).isZero();
    assertThat(Args.waitNanos("waitTime", 2, TimeUnit.MILLISECONDS)).isEqualTo(2_000_000L);
    assertThatThrownBy(() -> Args.waitNanos("waitTime", -2, TimeUnit.HOURS))
        .hasMessage("waitTime must not be negative: -2 HOURS");
  }

  @Test
  void anEnormousDurationWaitSaturatesInsteadOfOverflowing() {
    assertThat(Args.waitNanos("waitTime", Duration.ofDays(365L * 1_000_000)))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void leasesMustBeAtLeastOneMillisecond() {
    assertThat(Args.leaseMillis("leaseTime", 3, TimeUnit.SECONDS)).isEqualTo(3_000L);
    assertThatThrownBy(() -> Args.leaseMillis("leaseTime", 999, TimeUnit.MICROSECONDS))
        .hasMessage("leaseTime must be at least 1 millisecond: 999 MICROSECONDS");
    assertThatThrownBy(() -> Args.leaseMillis("leaseTime", 0, TimeUnit.DAYS))
        .hasMessage("leaseTime must be positive: 0 DAYS");
  }

  @Test
  void namesWithBracesWouldBreakTheHashTagAndAreRejected() {
    assertThatThrownBy(() -> Args.name("}x"))
        .hasMessageContaining("must not contain '{' or '}'")
        .hasMessageContaining("'}x'");
    assertThat(Args.name("orders:eu-1")).isEqualTo("orders:eu-1");
  }

  @Test
  void countsMustNotBeNegativeAndPermitIdsMustHaveText() {
    assertThat(Args.notNegative("permits", 0)).isZero();
    assertThatThrownBy(() -> Args.notNegative("permits", -1))
        .hasMessage("permits must not be negative: -1");
    assertThatThrownBy(() -> Args.permitId(null))
        .hasMessage("permitId must not be null or blank: null");
    assertThatThrownBy(() -> Args.permitId(" "))
        .hasMessage("permitId must not be null or blank: ' '");
    assertThat(Args.permitId("0af3")).isEqualTo("0af3");
  }

  @Test
  void theBuildersChecksNameTheArgumentAndItsValue() {
    assertThatThrownBy(() -> Args.required("tls", null)).hasMessage("tls must not be null");
    assertThatThrownBy(() -> Args.text("redisUri", " "))
        .hasMessage("redisUri must not be null or blank:  ");
    assertThatThrownBy(() -> Args.atLeast("watchdogTimeout", Duration.ZERO, Duration.ofMillis(30)))
        .hasMessage("watchdogTimeout must be at least PT0.03S: PT0S");
    assertThatThrownBy(() -> Args.atLeast("commandTimeout", null, Duration.ofMillis(1)))
        .hasMessage("commandTimeout must be at least PT0.001S: null");
    assertThat(Args.atLeast("recheckInterval", Duration.ofMillis(1), Duration.ofMillis(1)))
        .isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void aListOfTextsNeedsOneAndNamesTheBadOneByIndex() {
    assertThat(Args.texts("seedUris", "redis://a:1", "redis://b:2"))
        .containsExactly("redis://a:1", "redis://b:2");
    assertThatThrownBy(() -> Args.texts("seedUris")).hasMessage("seedUris must not be empty");
    assertThatThrownBy(() -> Args.texts("seedUris", (String[]) null))
        .hasMessage("seedUris must not be null");
    assertThatThrownBy(() -> Args.texts("seedUris", "redis://a:1", null))
        .hasMessage("seedUris[1] must not be null or blank: null");
  }
}
