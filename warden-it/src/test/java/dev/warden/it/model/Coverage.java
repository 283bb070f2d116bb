package dev.warden.it.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * How often a run reached the paths the invariants watch (a hand-off, a yielding release, a far
 * waiter passed over, a late leave, ...): printed with each family's summary, so that a run that
 * never reaches a path shows it instead of passing quietly.
 */
final class Coverage {
  private static final Map<String, Long> COUNTS = new TreeMap<>();

  private Coverage() {}

  static synchronized void hit(String path) {
    COUNTS.merge(path, 1L, Long::sum);
  }

  /** The counts since the last call, and starts again. */
  static synchronized String drain() {
    String counts = COUNTS.toString();
    COUNTS.clear();
    return counts;
  }
}
