package dev.warden.it.model;

import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Model-based tests of Warden's scripts: seeded random sequences of acquisitions, re-entries,
 * releases, hand-offs, renewals, leaves, condition waits and signals, permits, across three clients
 * of two threads each, interleaved with the faults that matter (a restart from an older snapshot, a
 * reply lost after the script ran and the call retried or given back, a lease that runs out, a
 * waiter that gives up while a hand-off is on its way), against a real redis-server. A reference
 * model of what each client knows is checked after every step (see {@link Invariants}).
 *
 * <p>By default each family runs {@value #DEFAULT_SECONDS} s (the suite's bounded run), from a
 * random master seed printed at the start. {@code -Dwarden.model.minutes=N} runs each family N
 * minutes; {@code -Dwarden.model.seed=S} replays one sequence's seed; {@code
 * -Dwarden.model.family=REENTRANT} (or FAIR, READ_WRITE, PERMITS) runs only that family. On a
 * failure it prints, per broken invariant, the seed, the minimal sequence and its script calls.
 */
@ExtendWith(WardenExtension.class)
class ModelIT {
  private static final int DEFAULT_SECONDS = 10;
  private static final int LENGTH = 60;

  private static Wire wire;

  @BeforeAll
  static void connect(RedisServer server) {
    wire = new Wire(server.uri());
  }

  @AfterAll
  static void close() {
    wire.close();
  }

  @Test
  void reentrantLocksMultiLocksAndConditionsKeepTheirInvariants() {
    explore(Model.Family.REENTRANT);
  }

  @Test
  void theFairLockAndItsConditionKeepTheirInvariants() {
    explore(Model.Family.FAIR);
  }

  @Test
  void theReadWriteLockKeepsItsInvariants() {
    explore(Model.Family.READ_WRITE);
  }

  @Test
  void semaphoresAndTheLatchKeepTheirInvariants() {
    explore(Model.Family.PERMITS);
  }

  private static void explore(Model.Family family) {
    String only = System.getProperty("warden.model.family", "");
    if (!only.isEmpty() && !only.equalsIgnoreCase(family.name())) {
      return;
    }
    Explorer explorer = new Explorer(wire, family, LENGTH);
    String replay = System.getProperty("warden.model.seed", "");
    if (!replay.isEmpty()) {
      explorer.explore(Long.parseLong(replay));
    } else {
      long master = Long.getLong("warden.model.master", new SplittableRandom().nextLong());
      Duration budget =
          Duration.ofMinutes(Long.getLong("warden.model.minutes", 0))
              .plusSeconds(Long.getLong("warden.model.minutes", 0) == 0 ? DEFAULT_SECONDS : 0);
      System.out.printf("model %s: master seed %d, for %s%n", family, master, budget);
      SplittableRandom seeds = new SplittableRandom(master);
      long end = System.nanoTime() + budget.toNanos();
      while (System.nanoTime() - end < 0) {
        explorer.explore(seeds.nextLong());
      }
    }
    System.out.printf(
        "model %s: %d sequences, %d steps, %d invariants broken%n",
        family, explorer.sequences, explorer.steps, explorer.findings().size());
    StringBuilder report = new StringBuilder();
    explorer.findings().values().forEach(finding -> report.append(finding.report(family)));
    if (!explorer.findings().isEmpty()) {
      throw new AssertionError(
          explorer.findings().size() + " invariants broken (" + family + "):" + report);
    }
  }
}
