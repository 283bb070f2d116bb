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
 * releases, hand-offs, renewals, leaves, multi-lock waits, condition waits and signals, permits,
 * across two or three clients of two or three threads each, interleaved with the faults that matter
 * (a restart from an older snapshot, a reply lost after the script ran and the call retried, given
 * back or left in doubt, a lease that runs out, a waiter that gives up while a hand-off is on its
 * way, a give-back and leave that arrive late, a cross-client turn that ends), against a real
 * redis-server. A reference model of what each client knows is checked after every step (see {@link
 * Invariants} and {@link Turns}), and so is who hears the wake-ups: the clients of a rolling deploy
 * (one of the previous version) with a monitoring tool's pattern subscription ({@link Hearing}).
 *
 * <p>By default each family runs {@value #DEFAULT_SECONDS} s (the suite's bounded run), from a
 * random master seed printed at the start, and may spend {@value #DEFAULT_SHRINK_SECONDS} s more
 * shrinking what it found (all its findings together; a tenth of the run with {@code
 * -Dwarden.model.minutes}, a minute when replaying a seed). {@code -Dwarden.model.minutes=N} runs
 * each family N minutes; {@code -Dwarden.model.seed=S} replays one sequence's seed; {@code
 * -Dwarden.model.family=REENTRANT} (or FAIR, READ_WRITE, PERMITS) runs only that family. On a
 * failure it prints, per broken invariant, the seed, the minimal sequence and its script calls.
 * {@link ClientWakeUpsModelIT} runs the same families on the scripts' recording twins ({@code
 * WakeUps.FROM_CLIENT}).
 */
@ExtendWith(WardenExtension.class)
class ModelIT {
  private static final int DEFAULT_SECONDS = 10;
  private static final int DEFAULT_SHRINK_SECONDS = 4;
  private static final int LENGTH = 60;

  static Wire wire;

  @BeforeAll
  static void connect(RedisServer server) {
    wire = new Wire(server.uri(), /* clientPublishes= */ false);
  }

  /** How long each family runs by default, in seconds. */
  int defaultSeconds() {
    return DEFAULT_SECONDS;
  }

  /** Checks a family's run, which published {@code published} wake-ups from the client. */
  void ran(Model.Family family, long published) {}

  /** What the printed lines call this run of a family. */
  String label(Model.Family family) {
    return family.name();
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

  private void explore(Model.Family family) {
    String only = System.getProperty("warden.model.family", "");
    if (!only.isEmpty() && !only.equalsIgnoreCase(family.name())) {
      return;
    }
    long minutes = Long.getLong("warden.model.minutes", 0);
    Duration budget =
        minutes == 0 ? Duration.ofSeconds(defaultSeconds()) : Duration.ofMinutes(minutes);
    String replay = System.getProperty("warden.model.seed", "");
    Duration shrinking =
        !replay.isEmpty()
            ? Duration.ofMinutes(1)
            : minutes == 0 ? Duration.ofSeconds(DEFAULT_SHRINK_SECONDS) : budget.dividedBy(10);
    Explorer explorer = new Explorer(wire, family, LENGTH, shrinking);
    long published = wire.published();
    if (!replay.isEmpty()) {
      explorer.explore(Long.parseLong(replay));
    } else {
      long master = Long.getLong("warden.model.master", new SplittableRandom().nextLong());
      System.out.printf(
          "model %s: master seed %d, for %s (and at most %s shrinking)%n",
          label(family), master, budget, shrinking);
      SplittableRandom seeds = new SplittableRandom(master);
      long end = System.nanoTime() + budget.toNanos();
      while (System.nanoTime() - end < 0) {
        explorer.explore(seeds.nextLong());
      }
    }
    System.out.printf(
        "model %s: %d sequences, %d steps, %d invariants broken; reached %s%n",
        label(family),
        explorer.sequences,
        explorer.steps,
        explorer.findings().size(),
        Coverage.drain());
    ran(family, wire.published() - published);
    StringBuilder report = new StringBuilder();
    explorer.findings().values().forEach(finding -> report.append(finding.report(family)));
    if (!explorer.findings().isEmpty()) {
      throw new AssertionError(
          explorer.findings().size() + " invariants broken (" + label(family) + "):" + report);
    }
  }
}
