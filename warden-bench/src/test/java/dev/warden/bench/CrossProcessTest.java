package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CrossProcessTest {

  @Test
  void clientCpuWithoutJitTakesOutOnlyTheWorkersCompilerThreads() {
    Tally tally = new Tally(new Window());
    tally.set("worker_cpu_ns", 1_000_000);
    tally.set(WorkerJvms.cpuKey(ProcThreads.Kind.JIT), 600_000);
    tally.set(WorkerJvms.cpuKey(ProcThreads.Kind.GC), 100_000);
    tally.set(WorkerJvms.cpuKey(ProcThreads.Kind.WORKLOAD), 250_000);
    tally.set(WorkerJvms.cpuKey(ProcThreads.Kind.EXITED), 50_000);

    // 10 acquisitions; the runner's own JVM used 20 us meanwhile.
    Map<String, Double> metrics = CrossProcess.threadClasses(tally, 20_000, 10);

    assertThat(metrics.get(CrossProcess.CLIENT_CPU_NO_JIT.key()))
        .isCloseTo((20 + 1_000 - 600) / 10.0, within(1e-9));
    assertThat(metrics.get("worker_cpu_jit_us_per_op")).isCloseTo(60.0, within(1e-9));
    assertThat(metrics.get("worker_cpu_gc_us_per_op")).isCloseTo(10.0, within(1e-9));
    assertThat(metrics.get("worker_cpu_workload_us_per_op")).isCloseTo(25.0, within(1e-9));
    assertThat(metrics.get("worker_cpu_exited_us_per_op")).isCloseTo(5.0, within(1e-9));
    assertThat(metrics.get("worker_cpu_timer_us_per_op")).isZero();
    for (ProcThreads.Kind kind : ProcThreads.Kind.values()) {
      assertThat(metrics).containsKey(CrossProcess.workerCpu(kind).key());
    }
  }

  @Test
  void withoutProcTheSplitIsUnknownNotZero() {
    Tally tally = new Tally(new Window());
    tally.set("worker_cpu_ns", 1_000_000);
    tally.set("worker_cpu_by_class_unknown", 1);

    Map<String, Double> metrics = CrossProcess.threadClasses(tally, 20_000, 10);

    assertThat(metrics.values()).isNotEmpty().allMatch(value -> value.isNaN());
  }

  @Test
  void w9ShowsClientCpuWithoutJitAndTheSplitBesideTheRawFigure() {
    assertThat(CrossProcess.manyInstances().headline())
        .extracting(Metric::label)
        .containsSubsequence(
            "client CPU/op",
            "client CPU/op without JIT compilation",
            "workers' JIT compiler CPU/op",
            "workers' GC and VM thread CPU/op",
            "workers' lock threads CPU/op",
            "workers' ended threads CPU/op");
    assertThat(CrossProcess.reentrant().headline())
        .extracting(Metric::key)
        .contains(Costs.CLIENT_CPU.key())
        .doesNotContain(CrossProcess.CLIENT_CPU_NO_JIT.key());
  }
}
