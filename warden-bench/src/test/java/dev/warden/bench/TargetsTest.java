package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TargetsTest {

  @Test
  void ratioTargetsPassWhenTheRatioAsShownMeetsTheGoal() {
    Results results = new Results(Map.of());
    results.add(
        new W1Uncontended(),
        point("T=16"),
        samples(Map.of("pairs_per_s", 30_000.0), Map.of("pairs_per_s", 10_010.0)));
    results.add(
        new W1Uncontended(),
        point("T=64"),
        samples(Map.of("pairs_per_s", 29_000.0), Map.of("pairs_per_s", 10_000.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    assertThat(verdict(verdicts, "T=16 pairs/s").outcome())
        .isEqualTo(Targets.Outcome.PASS); // 2.997x shows as 3.00x
    assertThat(verdict(verdicts, "T=64 pairs/s").outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "T=64 pairs/s").measured()).isEqualTo("2.90x");
  }

  @Test
  void targetsOfWorkloadsThatDidNotRunOrOfMissingPrimitivesAreNotApplicable() {
    Results results = new Results(Map.of());
    Workload fair = Contended.fair();
    for (String label : List.of("T=2", "T=8", "T=32")) {
      results.add(
          fair,
          point(label),
          Map.of(
              Library.WARDEN, Sample.unavailable("fair locks are not available"),
              Library.REDISSON,
                  Sample.measured(Map.of("acquisitions_per_s", 2_000.0), Map.of(), List.of())));
    }

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    assertThat(verdicts).isNotEmpty();
    assertThat(verdicts)
        .filteredOn(v -> v.workload().equals("W3"))
        .allMatch(v -> v.outcome() == Targets.Outcome.NA);
    assertThat(verdicts)
        .filteredOn(v -> v.workload().equals("W1"))
        .allMatch(v -> v.outcome() == Targets.Outcome.NA);
  }

  @Test
  void aCorrectnessProblemOfWardenMissesTheExclusionTarget() {
    Results results = new Results(Map.of());
    results.add(
        Contended.reentrant(),
        point("T=2"),
        Map.of(
            Library.WARDEN,
                Sample.measured(Map.of(), Map.of(), List.of("counter is 9 after 10 acquisitions")),
            Library.REDISSON, Sample.measured(Map.of(), Map.of(), List.of())));

    Targets.Verdict exclusion =
        Targets.evaluate(results).stream()
            .filter(v -> v.workload().equals("W2") && v.target().startsWith("mutual exclusion"))
            .findFirst()
            .orElseThrow();

    assertThat(exclusion.outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(exclusion.warden()).contains("counter is 9");
  }

  private static Point point(String label) {
    return new Point(
        label,
        Map.of(),
        Optional.empty(),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        1,
        (contender, prefix) -> null);
  }

  private static Map<Library, Sample> samples(
      Map<String, Double> warden, Map<String, Double> redisson) {
    return Map.of(
        Library.WARDEN, Sample.measured(warden, Map.of(), List.of()),
        Library.REDISSON, Sample.measured(redisson, Map.of(), List.of()));
  }

  private static Targets.Verdict verdict(List<Targets.Verdict> verdicts, String target) {
    return verdicts.stream().filter(v -> v.target().equals(target)).findFirst().orElseThrow();
  }
}
