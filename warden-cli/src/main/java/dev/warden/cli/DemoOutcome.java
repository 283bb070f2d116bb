package dev.warden.cli;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What a demo run produced, and whether it shows mutual exclusion: every increment kept, one
 * fencing token per acquisition, tokens strictly increasing in the order the critical sections ran,
 * and every worker finished.
 *
 * @param workerProblems why workers have no result; empty when all reported one
 * @param acquisitions sum of the acquisitions the workers reported: the expected counter
 * @param counter the counter as Redis has it after the run
 * @param tokens the fencing tokens in the order they were recorded
 * @param waits lock waits of all workers, in microseconds
 * @param leasesLost holds whose lease their {@code unlock()} reported lost (a failover that lost
 *     them): informative; a lost update is judged by the counter
 * @param retriedCalls calls that failed and were tried again (a failover under way): informative
 */
// ArrayRecordComponent: tokens is read once for the verdict; no DemoOutcome is compared or hashed
@SuppressWarnings("ArrayRecordComponent")
record DemoOutcome(
    List<String> workerProblems,
    long acquisitions,
    long counter,
    long[] tokens,
    Histogram waits,
    long leasesLost,
    long retriedCalls) {
  static final String PASS = "VERDICT: PASS";

  DemoOutcome {
    workerProblems = List.copyOf(workerProblems);
  }

  /** Returns why the run fails, most telling first; empty when it passes. */
  List<String> failures() {
    List<String> failures = new ArrayList<>(workerProblems);
    if (counter < acquisitions) {
      failures.add(
          "lost updates: counter is " + counter + " after " + acquisitions + " locked increments");
    } else if (counter > acquisitions) {
      failures.add(
          "counter is " + counter + ", more than the " + acquisitions + " increments reported");
    }
    if (tokens.length != acquisitions) {
      failures.add(
          tokens.length + " fencing tokens recorded for " + acquisitions + " acquisitions");
    }
    int outOfOrder = firstOutOfOrder(tokens);
    if (outOfOrder >= 0) {
      failures.add(
          "fencing token #"
              + outOfOrder
              + " ("
              + tokens[outOfOrder]
              + ") is not greater than the one before it ("
              + tokens[outOfOrder - 1]
              + ")");
    }
    if (acquisitions == 0 && failures.isEmpty()) {
      failures.add("no worker acquired the lock");
    }
    return failures;
  }

  /** Returns the verdict line: {@code VERDICT: PASS} or {@code VERDICT: FAIL (reasons)}. */
  String verdict() {
    List<String> failures = failures();
    return failures.isEmpty() ? PASS : "VERDICT: FAIL (" + String.join("; ", failures) + ")";
  }

  /**
   * Returns the result block: one aligned line per check, without the verdict.
   *
   * @param lockAfterRun how the lock looks after the run, for information
   */
  List<String> report(String lockAfterRun) {
    int outOfOrder = firstOutOfOrder(tokens);
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("acquisitions (expected count)", Text.grouped(acquisitions)));
    rows.add(
        List.of(
            "counter (actual)",
            Text.grouped(counter),
            counter == acquisitions
                ? "ok"
                : "MISMATCH (" + Text.grouped(counter - acquisitions) + ")"));
    rows.add(
        List.of(
            "fencing tokens recorded",
            Text.grouped(tokens.length),
            tokens.length == acquisitions ? "ok" : "MISMATCH"));
    rows.add(
        List.of(
            "tokens strictly increasing",
            outOfOrder < 0 ? "yes" : "NO, first at #" + outOfOrder,
            outOfOrder < 0 ? "ok" : "FAIL"));
    if (tokens.length > 0) {
      rows.add(
          List.of(
              "token range",
              Text.grouped(tokens[0]) + " .. " + Text.grouped(tokens[tokens.length - 1])));
    }
    rows.add(
        List.of(
            "lock wait p50 / p99 / max",
            Text.micros(waits.getValueAtPercentile(50))
                + " / "
                + Text.micros(waits.getValueAtPercentile(99))
                + " / "
                + Text.micros(waits.getMaxValue())));
    if (leasesLost > 0) {
      rows.add(List.of("leases lost, told by unlock()", Text.grouped(leasesLost)));
    }
    if (retriedCalls > 0) {
      rows.add(List.of("calls failed and retried", Text.grouped(retriedCalls)));
    }
    rows.add(List.of("lock after the run", lockAfterRun));
    for (String problem : workerProblems) {
      rows.add(List.of("worker problem", problem));
    }
    return Text.aligned("  ", rows);
  }

  /** Returns the index of the first token not greater than its predecessor; -1 if none. */
  static int firstOutOfOrder(long[] tokens) {
    for (int i = 1; i < tokens.length; i++) {
      if (tokens[i] <= tokens[i - 1]) {
        return i;
      }
    }
    return -1;
  }
}
