package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsTest {
  private static final Path OUT = Path.of("bench-results");

  @Test
  void defaultsToAThrowawayServerEveryWorkloadAndTwoRoundsOfFiveSeconds() {
    Settings settings = Settings.parse(List.of(), OUT).orElseThrow();

    assertThat(settings.uri()).isEmpty();
    assertThat(settings.runs("W3")).isTrue();
    assertThat(settings.quick()).isFalse();
    assertThat(settings.seconds()).isEqualTo(10);
    assertThat(settings.rounds()).isEqualTo(2);
    assertThat(settings.window()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.warmUp()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.out()).isEqualTo(OUT);
  }

  @Test
  void parsesEveryOptionInBothSpellings() {
    Settings settings =
        Settings.parse(
                List.of(
                    "--uri",
                    "redis://h:1",
                    "--only=w1, W3",
                    "--quick",
                    "--seconds",
                    "2",
                    "--out=x"),
                OUT)
            .orElseThrow();

    assertThat(settings.uri()).contains("redis://h:1");
    assertThat(settings.only()).isEqualTo(Set.of("W1", "W3"));
    assertThat(settings.runs("W2")).isFalse();
    assertThat(settings.quick()).isTrue();
    assertThat(settings.seconds()).isEqualTo(2);
    assertThat(settings.out()).isEqualTo(Path.of("x"));
  }

  @Test
  void quickMeansOneRoundOfOneSecondUnlessSecondsAreGiven() {
    Settings quick = Settings.parse(List.of("--quick"), OUT).orElseThrow();

    assertThat(quick.rounds()).isEqualTo(1);
    assertThat(quick.window()).isEqualTo(Duration.ofSeconds(1));
    assertThat(quick.warmUp()).isEqualTo(Duration.ofSeconds(1));
    assertThat(Settings.parse(List.of("--quick", "--seconds", "3"), OUT).orElseThrow().window())
        .isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aRoundIsNeverShorterThanOneSecond() {
    assertThat(Settings.parse(List.of("--seconds", "1"), OUT).orElseThrow().window())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void helpReturnsNothing() {
    assertThat(Settings.parse(List.of("--quick", "-h"), OUT)).isEqualTo(Optional.empty());
  }

  @Test
  void theCrossProcessWorkloadsCanBeChosenAlone() {
    Settings settings = Settings.parse(List.of("--only", "w7,W7F"), OUT).orElseThrow();

    assertThat(settings.only()).isEqualTo(Set.of("W7", "W7F"));
    assertThat(settings.runs("W2")).isFalse();
  }

  @Test
  void errorsNameTheOptionAndTheValue() {
    assertThatThrownBy(() -> Settings.parse(List.of("--seconds", "0"), OUT))
        .hasMessageContaining("--seconds")
        .hasMessageContaining(": 0");
    assertThatThrownBy(() -> Settings.parse(List.of("--only", "W11"), OUT))
        .hasMessageContaining("W11");
    assertThatThrownBy(() -> Settings.parse(List.of("--uri"), OUT))
        .hasMessage("--uri needs a value");
    assertThatThrownBy(() -> Settings.parse(List.of("--fast"), OUT))
        .hasMessage("unknown option: --fast");
  }
}
