package dev.warden.it.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs seeded random sequences of one family against the real scripts, checks the invariants after
 * every step, and shrinks each sequence that breaks one to a minimal sequence that still breaks the
 * same invariant (dropping chunks of steps, then single steps, while it still fails), within the
 * family's shrinking budget. Each invariant is reported once per kind of step that broke it, with
 * its seed, its (minimal) sequence in words, and the script calls of that sequence in order.
 */
final class Explorer {
  /** A sequence that broke an invariant, shrunk: its seed, its steps and what they did. */
  record Finding(
      long seed, Violation violation, List<String> steps, List<String> calls, boolean minimal) {
    String report(Model.Family family) {
      StringBuilder out = new StringBuilder();
      out.append("\n=== ")
          .append(family)
          .append(": ")
          .append(violation.getMessage())
          .append("\nseed ")
          .append(seed)
          .append(" (replay it alone: -Dwarden.model.seed=")
          .append(seed)
          .append(" -Dwarden.model.family=")
          .append(family)
          .append(
              minimal ? ")\nminimal sequence, " : ")\nsequence (the shrinking budget ran out), ")
          .append(steps.size())
          .append(" steps:\n");
      for (int i = 0; i < steps.size(); i++) {
        out.append(String.format("  %2d. %s%n", i + 1, steps.get(i)));
      }
      out.append("its calls, in order (<name> = redis/prelude.lua followed by <name>.lua):\n");
      calls.forEach(call -> out.append("  ").append(call).append('\n'));
      return out.toString();
    }
  }

  /** What one run of a sequence did: the steps that applied, the calls, and how it ended. */
  private record Outcome(
      List<Step> applied, List<String> words, List<String> calls, Violation violation) {}

  private final Wire wire;
  private final Model.Family family;
  private final int length;
  private final Map<String, Finding> findings = new LinkedHashMap<>();
  private final long shrinkNanos;
  private long shrinkUsed;
  int sequences;
  long steps;

  /**
   * @param shrinkBudget how long this family may spend shrinking, all its findings together: a
   *     bound on the suite's time (a finding met once the budget is spent is reported as run)
   */
  Explorer(Wire wire, Model.Family family, int length, java.time.Duration shrinkBudget) {
    this.wire = wire;
    this.family = family;
    this.length = length;
    this.shrinkNanos = shrinkBudget.toNanos();
  }

  Map<String, Finding> findings() {
    return findings;
  }

  /** Generates and runs the sequence of {@code seed}; records what it broke, shrunk. */
  void explore(long seed) {
    sequences++;
    Random random = new Random(seed);
    Model generator = new Model(wire, family);
    List<Step> sequence = new ArrayList<>();
    for (int i = 0; i < length; i++) {
      sequence.add(generator.generate(random));
    }
    Outcome outcome = run(sequence);
    steps += outcome.applied().size();
    Violation violation = outcome.violation();
    if (violation == null) {
      return;
    }
    // one finding per invariant and kind of step that broke it (e.g. a release, a rewind)
    Step last = outcome.applied().get(outcome.applied().size() - 1);
    String signature = violation.kind() + " at " + last.op();
    if (findings.containsKey(signature)) {
      return;
    }
    long started = System.nanoTime();
    long deadline = started + (shrinkNanos - shrinkUsed);
    Outcome minimal = shrink(outcome, violation.kind(), deadline);
    long ended = System.nanoTime();
    shrinkUsed += ended - started;
    findings.put(
        signature,
        new Finding(
            seed, minimal.violation(), minimal.words(), minimal.calls(), ended - deadline < 0));
  }

  /** Runs a sequence on an empty database; stops at the first broken invariant. */
  private Outcome run(List<Step> sequence) {
    wire.flush();
    Model model = new Model(wire, family);
    List<Step> applied = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (Step step : sequence) {
      try {
        String did = model.apply(step);
        if (did == null) {
          continue;
        }
        applied.add(step);
        words.add(did);
        model.check();
      } catch (Violation violation) {
        if (violation.step() != null) {
          applied.add(step);
          words.add(violation.step() + "   <- broke it, inside this step");
        }
        return new Outcome(applied, words, wire.log(), violation);
      }
    }
    return new Outcome(applied, words, wire.log(), null);
  }

  /**
   * Drops chunks of steps, halving the chunk down to one step, as long as the same invariant still
   * breaks; returns the run of the smallest such sequence.
   */
  private Outcome shrink(Outcome failed, String kind, long deadline) {
    Outcome best = failed;
    for (int chunk = Math.max(1, best.applied().size() / 2); chunk >= 1; chunk /= 2) {
      boolean dropped = true;
      while (dropped && System.nanoTime() - deadline < 0) {
        dropped = false;
        List<Step> current = best.applied();
        for (int from = 0;
            from + chunk <= current.size() && System.nanoTime() - deadline < 0;
            from++) {
          List<Step> candidate = new ArrayList<>(current.subList(0, from));
          candidate.addAll(current.subList(from + chunk, current.size()));
          Outcome outcome = run(candidate);
          if (outcome.violation() != null && outcome.violation().kind().equals(kind)) {
            best = outcome;
            dropped = true;
            break;
          }
        }
      }
    }
    // then each step's variant as plain as it gets (no fault), where the same invariant breaks
    for (int i = 0; i < best.applied().size() && System.nanoTime() - deadline < 0; i++) {
      Step step = best.applied().get(i);
      if (step.variant() == 0) {
        continue;
      }
      List<Step> candidate = new ArrayList<>(best.applied());
      candidate.set(i, new Step(step.op(), step.target(), step.client(), step.thread(), 0));
      Outcome outcome = run(candidate);
      if (outcome.violation() != null
          && outcome.violation().kind().equals(kind)
          && outcome.applied().size() == candidate.size()) {
        best = outcome;
      }
    }
    return best;
  }
}
