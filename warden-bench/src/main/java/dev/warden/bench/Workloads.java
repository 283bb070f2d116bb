package dev.warden.bench;

import java.util.List;

/** Every workload of the benchmark, in the order it runs them and judges their targets. */
final class Workloads {
  static final List<Workload> ALL =
      List.of(
          new W1Uncontended(),
          Contended.reentrant(),
          Contended.fair(),
          new W4ReadWrite(),
          new W5LeaseKeeper(),
          new W6HandOff(),
          CrossProcess.reentrant(),
          CrossProcess.fair(),
          new W8DeepQueue(),
          CrossProcess.manyInstances(),
          new W10Cluster());

  private Workloads() {}
}
