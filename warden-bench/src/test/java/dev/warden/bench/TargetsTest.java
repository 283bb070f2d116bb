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
        point("T=1"),
        samples(Map.of("pairs_per_s", 12_970.0), Map.of("pairs_per_s", 10_000.0)));
    results.add(
        new W1Uncontended(),
        point("T=16"),
        samples(Map.of("client_cpu_us_per_op", 40.0), Map.of("client_cpu_us_per_op", 100.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    assertThat(verdict(verdicts, "T=1 pairs/s").outcome())
        .isEqualTo(Targets.Outcome.PASS); // 1.297x shows as 1.30x
    assertThat(verdict(verdicts, "T=16 client CPU/op").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "T=64 client CPU/op").outcome()).isEqualTo(Targets.Outcome.NA);
  }

  @Test
  void w1AtSixteenAndSixtyFourThreadsIsJudgedAgainstTheCeilingOfTheSameRun() {
    Results results = new Results(Map.of());
    results.ceiling(new Ceiling(Map.of(1, 10_000.0, 16, 40_000.0), ""));
    results.add(
        new W1Uncontended(),
        point("T=16"),
        samples(Map.of("pairs_per_s", 34_000.0), Map.of("pairs_per_s", 10_000.0)));
    results.add(
        new W1Uncontended(),
        point("T=64"),
        samples(Map.of("pairs_per_s", 33_000.0), Map.of("pairs_per_s", 10_000.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    Targets.Verdict sixteen = verdict(verdicts, "T=16 pairs/s vs the ceiling");
    assertThat(sixteen.outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(sixteen.measured()).isEqualTo("85 %");
    assertThat(verdict(verdicts, "T=64 pairs/s vs the ceiling").outcome())
        .isEqualTo(Targets.Outcome.MISS);
  }

  @Test
  void w5IsJudgedByCommandsPerRenewalAndRenewalsPerThirdOfTheLease() {
    Results results = new Results(Map.of());
    results.add(
        new W5LeaseKeeper(),
        point("N=1,000"),
        samples(
            Map.of("cmds_per_renewal", 2.04, "renewals_per_lock_per_third", 1.04),
            Map.of("cmds_per_renewal", 2.0, "renewals_per_lock_per_third", 0.6)));
    results.add(
        new W5LeaseKeeper(),
        point("N=10,000"),
        samples(
            Map.of("cmds_per_renewal", 2.2, "renewals_per_lock_per_third", 0.9),
            Map.of("cmds_per_renewal", 2.0, "renewals_per_lock_per_third", 0.6)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    assertThat(verdict(verdicts, "N=1,000 cmds/renewal").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "N=1,000 renewals/lock/third of lease").outcome())
        .isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "N=10,000 cmds/renewal").outcome())
        .isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "N=10,000 renewals/lock/third of lease").outcome())
        .isEqualTo(Targets.Outcome.MISS);
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

  @Test
  void w7TargetsAreJudgedAtFourByOneAndFourByFour() {
    Results results = new Results(Map.of());
    Workload w7 = CrossProcess.reentrant();
    // 4x1 meets every goal; 4x4 misses each, one way or another.
    results.add(
        w7,
        point("4x1", 4),
        samples(
            w7Metrics(2_000, 1_000, 100_000, 20, 30, 2.0),
            w7Metrics(1_000, 2_000, 300_000, 10, 40, 4.0)));
    results.add(
        w7,
        point("4x4", 4),
        samples(
            w7Metrics(1_900, 1_100, 260_000, 12, 30, 2.1),
            w7Metrics(1_000, 2_000, 300_000, 25, 25, 4.0)));
    results.add(
        w7,
        point("8x2", 8),
        samples(
            w7Metrics(100, 1, 1, 12.5, 12.5, 1.0), w7Metrics(1_000, 2_000, 300_000, 5, 20, 4.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    assertThat(verdict(verdicts, "4x1 acquisitions/s").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "4x1 acquisitions/s").measured()).isEqualTo("2.00x");
    assertThat(verdict(verdicts, "4x4 acquisitions/s").outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "4x1 wait p99").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "4x4 wait p99").outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "4x1 wait max").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "4x4 wait max").outcome()).isEqualTo(Targets.Outcome.MISS);
    // 4x1: shares of 20 % and 30 % are 0.8/P and 1.2/P; 4x4: 12 % is 0.48/P, under 0.5/P.
    Targets.Verdict fairShare =
        verdict(verdicts, "4x1 every process's share of acquisitions, in 1/P");
    assertThat(fairShare.outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(fairShare.warden()).isEqualTo("min 0.80, max 1.20");
    assertThat(verdict(verdicts, "4x4 every process's share of acquisitions, in 1/P").outcome())
        .isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "4x1 cmds/op").outcome()).isEqualTo(Targets.Outcome.PASS);
    assertThat(verdict(verdicts, "4x4 cmds/op").outcome()).isEqualTo(Targets.Outcome.MISS);
    // 8x2 has no W7 target of its own.
    assertThat(verdicts)
        .filteredOn(v -> v.workload().equals("W7"))
        .noneMatch(v -> v.target().startsWith("8x2"));
  }

  @Test
  void anOverlapOfWardenMissesTheW7ExclusionTargetAndW7fIsJudgedAgainstW7() {
    Results results = new Results(Map.of());
    results.add(
        CrossProcess.reentrant(),
        point("4x1", 4),
        Map.of(
            Library.WARDEN,
                Sample.measured(
                    w7Metrics(2_000, 1, 1, 25, 25, 2.0),
                    Map.of(),
                    List.of("OVERLAP: 1 critical sections began before another had ended")),
            Library.REDISSON,
                Sample.measured(w7Metrics(1_000, 1, 1, 25, 25, 4.0), Map.of(), List.of())));
    results.add(
        CrossProcess.fair(),
        point("4x1", 4),
        samples(w7Metrics(1_500, 1, 1, 25, 25, 3.0), w7Metrics(500, 1, 1, 25, 25, 7.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    Targets.Verdict exclusion =
        verdicts.stream()
            .filter(v -> v.workload().equals("W7") && v.target().startsWith("no overlap"))
            .findFirst()
            .orElseThrow();
    assertThat(exclusion.outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(exclusion.warden()).contains("OVERLAP");
    Targets.Verdict versusPlain =
        verdicts.stream()
            .filter(v -> v.workload().equals("W7F") && v.target().contains("vs Warden's W7"))
            .findFirst()
            .orElseThrow();
    assertThat(versusPlain.measured()).isEqualTo("0.75x");
    assertThat(versusPlain.outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(
            verdicts.stream()
                .filter(v -> v.workload().equals("W7F") && v.target().equals("4x1 cmds/op"))
                .findFirst()
                .orElseThrow()
                .outcome())
        .isEqualTo(Targets.Outcome.PASS); // 3 vs 7 commands: 0.43x
  }

  @Test
  void w9IsJudgedOnClientCpuFlatInProcessesAndOneDeliveryPerAcquisition() {
    Results results = new Results(Map.of());
    Workload w9 = CrossProcess.manyInstances();
    results.add(
        w9,
        point("4x1", 4),
        samples(
            Map.of("client_cpu_us_per_op", 100.0, "deliveries_per_op", 1.0),
            Map.of("client_cpu_us_per_op", 300.0, "deliveries_per_op", 4.0)));
    results.add(
        w9,
        point("8x2", 8),
        samples(Map.of("deliveries_per_op", 1.04), Map.of("deliveries_per_op", 8.0)));
    results.add(
        w9,
        point("16x1", 16),
        samples(
            Map.of("client_cpu_us_per_op", 125.0, "deliveries_per_op", 16.0),
            Map.of("client_cpu_us_per_op", 900.0, "deliveries_per_op", 16.0)));

    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    // Without the JIT split (no /proc, or an older results file) it is judged on all the CPU.
    Targets.Verdict flat = verdict(verdicts, "16x1 client CPU/op vs 4x1");
    assertThat(flat.target()).contains("JIT not split here");
    assertThat(flat.measured()).isEqualTo("1.25x");
    assertThat(flat.outcome()).isEqualTo(Targets.Outcome.MISS);
    assertThat(verdict(verdicts, "8x2 pub/sub deliveries/op").outcome())
        .isEqualTo(Targets.Outcome.PASS); // 1.04 judged as 1.0
    assertThat(verdict(verdicts, "16x1 pub/sub deliveries/op").outcome())
        .isEqualTo(Targets.Outcome.MISS);
    assertThat(verdicts)
        .filteredOn(v -> v.workload().equals("W9") && v.target().startsWith("no overlap"))
        .singleElement()
        .extracting(Targets.Verdict::outcome)
        .isEqualTo(Targets.Outcome.PASS);
  }

  @Test
  void w9FlatnessIsJudgedWithoutJitCompilationAndShowsTheFigureWithIt() {
    Results results = new Results(Map.of());
    Workload w9 = CrossProcess.manyInstances();
    results.add(
        w9,
        point("4x1", 4),
        samples(
            Map.of("client_cpu_us_per_op", 186.0, "client_cpu_no_jit_us_per_op", 150.0),
            Map.of("client_cpu_us_per_op", 417.0, "client_cpu_no_jit_us_per_op", 400.0)));
    results.add(
        w9,
        point("16x1", 16),
        samples(
            Map.of("client_cpu_us_per_op", 1380.0, "client_cpu_no_jit_us_per_op", 170.0),
            Map.of("client_cpu_us_per_op", 19740.0, "client_cpu_no_jit_us_per_op", 900.0)));

    Targets.Verdict flat =
        verdict(Targets.evaluate(results), "16x1 client CPU/op without JIT compilation vs 4x1");

    assertThat(flat.outcome()).isEqualTo(Targets.Outcome.PASS); // 170 / 150 = 1.13x
    assertThat(flat.measured()).isEqualTo("1.13x (7.42x with JIT)");
    assertThat(flat.warden()).isEqualTo("170 us (1.38 ms with JIT)");
    assertThat(flat.redisson()).isEqualTo("150 us at 4x1 (186 us with JIT)");

    results = new Results(Map.of());
    results.add(
        w9,
        point("4x1", 4),
        samples(
            Map.of("client_cpu_us_per_op", 186.0, "client_cpu_no_jit_us_per_op", 150.0), Map.of()));
    results.add(
        w9,
        point("16x1", 16),
        samples(
            Map.of("client_cpu_us_per_op", 186.0, "client_cpu_no_jit_us_per_op", 190.0), Map.of()));
    assertThat(
            verdict(Targets.evaluate(results), "16x1 client CPU/op without JIT compilation vs 4x1")
                .outcome())
        .isEqualTo(Targets.Outcome.MISS); // 1.27x without JIT, though 1.00x with it
  }

  private static Map<String, Double> w7Metrics(
      double rate, double p99, double max, double shareMin, double shareMax, double commands) {
    return Map.of(
        "acquisitions_per_s", rate,
        "wait_p99_us", p99,
        "wait_max_us", max,
        "share_min_pct", shareMin,
        "share_max_pct", shareMax,
        "cmds_per_op", commands);
  }

  private static Point point(String label, int processes) {
    return new Point(
        label,
        Map.of("processes", processes),
        Optional.empty(),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        1,
        (contender, prefix) -> null);
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
    return verdicts.stream()
        .filter(v -> v.target().equals(target) || v.target().startsWith(target + " ("))
        .findFirst()
        .orElseThrow();
  }
}
