package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportTest {

  @Test
  void anOverlapIsShownBeforeTheResultsAndTheTargets() {
    Results results = new Results(Map.of());
    results.add(
        CrossProcess.reentrant(),
        new Point(
            "4x1",
            Map.of("processes", 4),
            Optional.empty(),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            1,
            (contender, prefix) -> null),
        Map.of(
            Library.WARDEN,
                Sample.measured(
                    Map.of("overlaps", 2.0),
                    Map.of(),
                    List.of("OVERLAP: 2 critical sections began before another had ended")),
            Library.REDISSON, Sample.measured(Map.of("overlaps", 0.0), Map.of(), List.of())));
    List<Targets.Verdict> verdicts = Targets.evaluate(results);

    List<String> text = Report.text(results, verdicts);
    String markdown = Report.markdown(results, verdicts, List.of());

    int problem =
        text.indexOf(
            "  !! W7 4x1 Warden: OVERLAP: 2 critical sections began before another had ended");
    assertThat(problem)
        .isPositive()
        .isLessThan(text.indexOf("W7 " + CrossProcess.reentrant().title()));
    assertThat(markdown.indexOf("## Correctness problems"))
        .isPositive()
        .isLessThan(markdown.indexOf("## Targets"));
    assertThat(markdown).contains("- **W7 4x1 Warden: OVERLAP: 2 critical sections");
  }

  @Test
  void w9sTableShowsClientCpuWithAndWithoutJitAndWhereTheWorkersCpuWent() {
    Results results = new Results(Map.of());
    results.add(
        CrossProcess.manyInstances(),
        new Point(
            "16x1",
            Map.of("processes", 16),
            Optional.empty(),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            1,
            (contender, prefix) -> null),
        Map.of(
            Library.WARDEN,
                Sample.measured(
                    Map.of(
                        "client_cpu_us_per_op", 1380.0,
                        "client_cpu_no_jit_us_per_op", 400.0,
                        "worker_cpu_jit_us_per_op", 980.0),
                    Map.of(),
                    List.of()),
            Library.REDISSON,
                Sample.measured(Map.of("client_cpu_us_per_op", 19740.0), Map.of(), List.of())));

    String markdown = Report.markdown(results, Targets.evaluate(results), List.of());

    assertThat(markdown)
        .contains("|  | client CPU/op | 1.38 ms | 19.74 ms | 0.07x |")
        .contains("|  | client CPU/op without JIT compilation | 400 us | n/a | n/a |")
        .contains("|  | workers' JIT compiler CPU/op | 980 us | n/a | n/a |");
  }

  @Test
  void aRunWithoutProblemsHasNoProblemSection() {
    Results results = new Results(Map.of());

    assertThat(Report.problems(results)).isEmpty();
    assertThat(Report.markdown(results, Targets.evaluate(results), List.of()))
        .doesNotContain("Correctness problems");
  }
}
