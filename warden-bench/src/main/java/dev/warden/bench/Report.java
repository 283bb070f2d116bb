package dev.warden.bench;

import dev.warden.bench.Results.PointResult;
import dev.warden.bench.Results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns results and target verdicts into what people read: the console's final tables and
 * summary.md. Both show, per workload, the headline metrics of Warden and Redisson and their ratio
 * (Warden / Redisson), the redis-benchmark ceiling, every target with PASS or MISS, and whatever
 * could not be measured or failed a correctness check.
 */
final class Report {
  private Report() {}

  /** Returns the console report's lines. */
  static List<String> text(Results results, List<Targets.Verdict> verdicts) {
    List<String> lines = new ArrayList<>();
    List<String> problems = problems(results);
    if (!problems.isEmpty()) {
      lines.add("");
      lines.add("CORRECTNESS PROBLEMS (two holders at once, lost updates):");
      problems.forEach(problem -> lines.add("  !! " + problem));
    }
    lines.add("");
    lines.add("Results (ratio = Warden / Redisson; for latencies and costs lower is better)");
    for (WorkloadResult workload : results.workloads()) {
      lines.add("");
      lines.add(workload.workload().id() + " " + workload.workload().title());
      lines.addAll(metricsTable(workload).text("  "));
      lines.add("  where the time went (" + BOUND_RULE + ")");
      lines.addAll(boundTable(workload).text("  "));
    }
    lines.add("");
    lines.add(ceilingLine(results.ceiling()));
    lines.add("");
    lines.add("Targets (issues 5 and 21)");
    lines.addAll(targetTable(verdicts).text("  "));
    lines.add("  " + tally(verdicts));
    List<String> notes = notes(results);
    if (!notes.isEmpty()) {
      lines.add("");
      lines.add("Notes");
      notes.forEach(note -> lines.add("  - " + note));
    }
    return lines;
  }

  /** Returns summary.md: the targets first, then every workload's table, the charts, the notes. */
  static String markdown(Results results, List<Targets.Verdict> verdicts, List<String> charts) {
    List<String> lines = new ArrayList<>();
    lines.add("# Warden vs Redisson");
    lines.add("");
    Map<String, Object> about = results.about();
    lines.add(
        "Run of "
            + about.get("started_at")
            + ": Warden "
            + about.get("warden_version")
            + " (commit "
            + about.get("git_commit")
            + ")"
            + ", Redisson "
            + about.get("redisson_version")
            + ", Redis "
            + about.get("redis_version")
            + ", Java "
            + about.get("java_version")
            + ", "
            + about.get("cores")
            + " cores (load average "
            + about.get("load_average_at_start")
            + " at the start, "
            + about.get("load_average_at_end")
            + " at the end); "
            + about.get("mode")
            + ". Ratio = Warden / Redisson. Network: "
            + about.get("network")
            + ".");
    List<String> problems = problems(results);
    if (!problems.isEmpty()) {
      lines.add("");
      lines.add("## Correctness problems");
      lines.add("");
      lines.add("**Mutual exclusion or an invariant failed in this run:**");
      lines.add("");
      problems.forEach(problem -> lines.add("- **" + problem + "**"));
    }
    lines.add("");
    lines.add("## Targets");
    lines.add("");
    lines.addAll(targetTable(verdicts).markdown());
    lines.add("");
    lines.add(tally(verdicts) + ". " + ceilingLine(results.ceiling()));
    for (WorkloadResult workload : results.workloads()) {
      lines.add("");
      lines.add("## " + workload.workload().id() + " " + workload.workload().title());
      lines.add("");
      lines.addAll(metricsTable(workload).markdown());
      lines.add("");
      lines.add("Where the time went (" + BOUND_RULE + "):");
      lines.add("");
      lines.addAll(boundTable(workload).markdown());
      String chart = workload.workload().id() + ".svg";
      if (charts.contains(chart)) {
        lines.add("");
        lines.add("![" + workload.workload().id() + "](" + chart + ")");
      }
    }
    List<String> notes = notes(results);
    if (!notes.isEmpty()) {
      lines.add("");
      lines.add("## Notes");
      lines.add("");
      notes.forEach(note -> lines.add("- " + note));
    }
    return String.join("\n", lines) + "\n";
  }

  /** How {@link Bound} decides, in a line. */
  static final String BOUND_RULE =
      "Redis-bound: Redis used >= "
          + Math.round(Bound.REDIS_BOUND_PCT)
          + " % of a core; CPU-bound: clients and Redis >= "
          + Math.round(Bound.CPU_BOUND_PCT)
          + " % of the cores; starved: the machine that busy with other work;"
          + " else latency-bound";

  /**
   * Returns per point and library whether the point was Redis-, CPU- or latency-bound, and the
   * figures that say so.
   */
  static Table boundTable(WorkloadResult workload) {
    Table table =
        new Table(
            3,
            "point",
            "library",
            "bound",
            "machine busy",
            "clients+Redis CPU of cores",
            "Redis CPU of a core",
            "CPU/op",
            "wall/op/thread");
    for (PointResult point : workload.points()) {
      String label = point.point().label();
      for (Library library : Library.values()) {
        Sample sample = point.sample(library);
        if (!sample.measured()) {
          continue;
        }
        table.row(
            label,
            library.displayName(),
            Bound.name(sample.get("bound")),
            Metric.Unit.PERCENT.format(sample.get("machine_busy_pct")),
            Metric.Unit.PERCENT.format(sample.get("clients_redis_busy_pct")),
            Metric.Unit.PERCENT.format(sample.get("redis_busy_pct")),
            Format.micros(sample.get("cpu_us_per_op")),
            Format.micros(sample.get("wall_us_per_op_per_thread")));
        label = "";
      }
    }
    return table;
  }

  /** Returns a workload's headline metrics per point: Warden, Redisson, ratio. */
  static Table metricsTable(WorkloadResult workload) {
    Table table = new Table(2, "point", "metric", "Warden", "Redisson", "ratio");
    for (PointResult point : workload.points()) {
      String label = point.point().label();
      for (Metric metric : workload.workload().headline()) {
        table.row(
            label,
            metric.label(),
            point.sample(Library.WARDEN).format(metric),
            point.sample(Library.REDISSON).format(metric),
            Format.ratio(point.ratio(metric.key())));
        label = "";
      }
    }
    return table;
  }

  static Table targetTable(List<Targets.Verdict> verdicts) {
    Table table = new Table(3, "", "target", "goal", "Warden", "Redisson", "measured", "verdict");
    for (Targets.Verdict verdict : verdicts) {
      table.row(
          verdict.workload(),
          verdict.target(),
          verdict.goal(),
          verdict.warden(),
          verdict.redisson(),
          verdict.measured(),
          verdict.outcome() == Targets.Outcome.NA ? "N/A" : verdict.outcome().name());
    }
    return table;
  }

  static String ceilingLine(Ceiling ceiling) {
    if (ceiling.clients().isEmpty()) {
      return "Ceiling (redis-benchmark): " + ceiling.note();
    }
    return "Ceiling (redis-benchmark on the same server, "
        + Ceiling.SCRIPTS
        + "): "
        + Format.compact(ceiling.rate(1))
        + " pairs/s from 1 client, "
        + Format.compact(ceiling.rate(16))
        + " from 16, "
        + Format.compact(ceiling.rate(64))
        + " from 64: what Redis can do at most for a lock()+unlock() of two script calls"
        + " (W1's ceiling: the best of 16 and 64).";
  }

  private static String tally(List<Targets.Verdict> verdicts) {
    long pass = verdicts.stream().filter(v -> v.outcome() == Targets.Outcome.PASS).count();
    long miss = verdicts.stream().filter(v -> v.outcome() == Targets.Outcome.MISS).count();
    long na = verdicts.size() - pass - miss;
    return pass + " PASS, " + miss + " MISS, " + na + " N/A";
  }

  /**
   * Returns every correctness problem of either library (an overlap of critical sections, a lost
   * increment), where it was seen first: shown before everything else.
   */
  static List<String> problems(Results results) {
    List<String> problems = new ArrayList<>();
    for (WorkloadResult workload : results.workloads()) {
      for (PointResult point : workload.points()) {
        for (Library library : Library.values()) {
          String where =
              workload.workload().id() + " " + point.point().label() + " " + library.displayName();
          point.sample(library).problems().forEach(problem -> problems.add(where + ": " + problem));
        }
      }
    }
    return problems;
  }

  /** Returns what was not measured and why, and every correctness problem, of either library. */
  private static List<String> notes(Results results) {
    List<String> notes = new ArrayList<>();
    for (WorkloadResult workload : results.workloads()) {
      for (PointResult point : workload.points()) {
        for (Library library : Library.values()) {
          Sample sample = point.sample(library);
          String where =
              workload.workload().id() + " " + point.point().label() + " " + library.displayName();
          if (!sample.measured()) {
            notes.add(
                where
                    + ": "
                    + (sample.status() == Sample.Status.UNAVAILABLE
                        ? "not available in this build ("
                        : "failed (")
                    + sample.note()
                    + ")");
          }
          sample.problems().forEach(problem -> notes.add(where + ": " + problem));
        }
      }
    }
    return notes;
  }
}
