package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OptionsTest {
  private static final Set<String> DEMO = Set.of("--uri", "--workers", "--lock");

  private static Options parse(String... args) {
    return Options.parse("demo", List.of(args), DEMO);
  }

  @Test
  void zeroForAPositiveOptionIsRejectedNamingTheOptionAndTheValue() {
    Options options = parse("--workers", "0");

    assertThatThrownBy(() -> options.intInRange("--workers", 4, 1, 64))
        .isInstanceOf(UsageException.class)
        .hasMessage("--workers must be a whole number from 1 to 64: 0");
  }

  @Test
  void textForANumericOptionIsRejectedNamingTheOptionAndTheValue() {
    Options options = parse("--workers=x");

    assertThatThrownBy(() -> options.intInRange("--workers", 4, 1, 64))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--workers")
        .hasMessageEndingWith(": x");
  }

  @Test
  void numberAboveTheMaximumIsRejectedNamingTheValue() {
    Options options = parse("--workers", "65");

    assertThatThrownBy(() -> options.intInRange("--workers", 4, 1, 64))
        .hasMessage("--workers must be a whole number from 1 to 64: 65");
  }

  @Test
  void negativeNumberIsTakenAsAValueAndRejected() {
    Options options = parse("--workers", "-3");

    assertThatThrownBy(() -> options.intInRange("--workers", 4, 1, 64))
        .hasMessage("--workers must be a whole number from 1 to 64: -3");
  }

  @Test
  void unknownOptionIsRejectedNamingTheCommandAndTheOption() {
    assertThatThrownBy(() -> parse("--wrokers", "2"))
        .isInstanceOf(UsageException.class)
        .hasMessage("unknown option for demo: --wrokers");
  }

  @Test
  void optionWithoutAValueIsRejectedNamingIt() {
    assertThatThrownBy(() -> parse("--workers")).hasMessage("--workers needs a value");
    assertThatThrownBy(() -> parse("--uri", "--workers", "2")).hasMessage("--uri needs a value");
  }

  @Test
  void emptyValueIsRejectedNamingTheOption() {
    Options options = parse("--lock=");

    assertThatThrownBy(() -> options.string("--lock", "x")).hasMessageStartingWith("--lock");
  }

  @Test
  void givenValuesWinOverFallbacksInBothSpellings() {
    Options options = parse("--workers", "8", "--lock=orders");

    assertThat(options.intInRange("--workers", 4, 1, 64)).isEqualTo(8);
    assertThat(options.string("--lock", "demo-counter")).isEqualTo("orders");
    assertThat(options.optional("--uri")).isEmpty();
  }

  @Test
  void absentOptionsGiveTheirFallbacks() {
    Options options = parse();

    assertThat(options.intInRange("--workers", 4, 1, 64)).isEqualTo(4);
    assertThat(options.string("--lock", "demo-counter")).isEqualTo("demo-counter");
  }

  @Test
  void missingRequiredOptionIsNamed() {
    assertThatThrownBy(() -> parse().required("--uri")).hasMessage("demo needs --uri <value>");
  }

  @Test
  void positionalsKeepTheirOrderAndDoubleDashEndsTheOptions() {
    Options options = parse("a", "--lock", "l", "b", "--", "--workers");

    assertThat(options.positionals()).containsExactly("a", "b", "--workers");
    assertThat(options.string("--lock", "x")).isEqualTo("l");
  }

  @Test
  void positionalsWhereNoneAreTakenAreRejectedNamingThem() {
    Options options = parse("extra");

    assertThatThrownBy(options::requireNoPositionals).hasMessageEndingWith(": extra");
  }

  @Test
  void helpIsRecognizedInBothSpellings() {
    assertThat(parse("-h").helpRequested()).isTrue();
    assertThat(parse("--help").helpRequested()).isTrue();
    assertThat(parse().helpRequested()).isFalse();
  }
}
