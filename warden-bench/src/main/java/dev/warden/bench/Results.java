package dev.warden.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one benchmark run measured: per workload, per point, a {@link Sample} per library; the
 * ceiling; and facts about the run (versions, settings). Filled by the runner on its thread, then
 * read by the report, the targets and the charts.
 */
final class Results {
  private final Map<String, Object> about;
  private final List<WorkloadResult> workloads = new ArrayList<>();
  private Ceiling ceiling = new Ceiling(Map.of(), "not measured");

  /** One point's samples; ratios are Warden's value over Redisson's. */
  record PointResult(Point point, Map<Library, Sample> samples) {
    PointResult {
      samples = new EnumMap<>(samples);
    }

    Sample sample(Library library) {
      return samples.getOrDefault(library, Sample.failed("not run"));
    }

    /** Returns Warden's value of the metric, or NaN. */
    double warden(String key) {
      return sample(Library.WARDEN).get(key);
    }

    /** Returns Redisson's value of the metric, or NaN. */
    double redisson(String key) {
      return sample(Library.REDISSON).get(key);
    }

    /** Returns Warden's value over Redisson's, or NaN when either is missing or Redisson's is 0. */
    double ratio(String key) {
      double redisson = redisson(key);
      return redisson == 0 ? Double.NaN : warden(key) / redisson;
    }
  }

  /** One workload's points, in order. */
  record WorkloadResult(Workload workload, List<PointResult> points) {
    Optional<PointResult> point(String label) {
      return points.stream().filter(p -> p.point().label().equals(label)).findFirst();
    }
  }

  Results(Map<String, Object> about) {
    this.about = new LinkedHashMap<>(about);
  }

  void add(Workload workload, Point point, Map<Library, Sample> samples) {
    WorkloadResult result =
        workloads.stream()
            .filter(w -> w.workload().id().equals(workload.id()))
            .findFirst()
            .orElseGet(
                () -> {
                  WorkloadResult created = new WorkloadResult(workload, new ArrayList<>());
                  workloads.add(created);
                  return created;
                });
    result.points().add(new PointResult(point, samples));
  }

  void ceiling(Ceiling measured) {
    this.ceiling = measured;
  }

  Ceiling ceiling() {
    return ceiling;
  }

  Map<String, Object> about() {
    return about;
  }

  List<WorkloadResult> workloads() {
    return workloads;
  }

  /** Returns the results of the workload with that id, if it ran. */
  Optional<WorkloadResult> workload(String id) {
    return workloads.stream().filter(w -> w.workload().id().equals(id)).findFirst();
  }

  /** Returns the results file's content. */
  Map<String, Object> toJson(List<Targets.Verdict> verdicts) {
    Map<String, Object> json = new LinkedHashMap<>(about);
    json.put("ceiling", ceiling.toJson());
    List<Object> workloadsJson = new ArrayList<>();
    for (WorkloadResult workload : workloads) {
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("id", workload.workload().id());
      w.put("title", workload.workload().title());
      List<Object> points = new ArrayList<>();
      for (PointResult point : workload.points()) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("label", point.point().label());
        p.put("parameters", new java.util.TreeMap<>(point.point().parameters()));
        p.put("warm_up_s", point.point().warmUp().toMillis() / 1000.0);
        p.put("window_s", point.point().window().toMillis() / 1000.0);
        p.put("rounds", point.point().rounds());
        for (Library library : Library.values()) {
          p.put(library.key(), point.sample(library).toJson());
        }
        Map<String, Object> ratios = new LinkedHashMap<>();
        point
            .sample(Library.WARDEN)
            .metrics()
            .keySet()
            .forEach(key -> ratios.put(key, point.ratio(key)));
        p.put("ratios_warden_over_redisson", ratios);
        points.add(p);
      }
      w.put("points", points);
      workloadsJson.add(w);
    }
    json.put("workloads", workloadsJson);
    List<Object> targets = new ArrayList<>();
    verdicts.forEach(v -> targets.add(v.toJson()));
    json.put("targets", targets);
    return json;
  }
}
