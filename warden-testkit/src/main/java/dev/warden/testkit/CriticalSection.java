package dev.warden.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A critical section that checks the exclusion around it, for tests of locks and semaphores: each
 * entry increments a plain, unsynchronized counter with a read and a separate write, so that two
 * callers inside at once can lose an update; it also records the most weight (permits) ever inside
 * at once and, on request, the fencing token of each hold in the order the holds entered.
 *
 * <pre>{@code
 * CriticalSection section = new CriticalSection();
 * StartGate.run(8, 100, contender -> {
 *   try (LockHandle hold = lock.acquire(Duration.ofSeconds(30))) {
 *     section.enterWithToken(hold.fencingToken());
 *   }
 * });
 * section.assertMutualExclusion(8 * 100); // exact count, one inside at most, tokens rising
 * }</pre>
 *
 * <p>The section yields the processor between the read and the write of the counter, which widens
 * the window a lost update needs; it does not prove exclusion, but a lock that fails to exclude
 * shows it within a few hundred contended entries.
 *
 * <p><b>Thread-safety.</b> Meant to be entered from many threads at once: the counter is
 * deliberately left to the exclusion under test, while the "inside" bookkeeping and the token
 * record are thread-safe, so they stay exact even when the exclusion fails. Read the results
 * ({@link #counter()}, the {@code assert} methods) once the callers have finished, e.g. after
 * {@link StartGate#run} returns, which makes their writes visible.
 *
 * @since 0.2
 */
public final class CriticalSection {

  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger maxInside = new AtomicInteger();
  private final List<Long> tokens = new ArrayList<>(); // guarded by itself
  private int counter; // deliberately unsynchronized: only the exclusion under test protects it

  /** Creates an empty section: no entries, nobody inside. */
  public CriticalSection() {}

  /** Enters with a weight of one permit, counts one entry, and leaves. */
  public void enter() {
    enter(1, CriticalSection::nothing);
  }

  /**
   * Enters with {@code weight} permits, counts one entry, and leaves.
   *
   * @throws IllegalArgumentException if {@code weight} is not positive
   */
  public void enter(int weight) {
    enter(weight, CriticalSection::nothing);
  }

  /**
   * Enters with {@code weight} permits, runs {@code work} between the read and the write of the
   * counter (e.g. writing to the resource the lock guards), counts one entry, and leaves. What
   * {@code work} throws propagates, and the entry is not counted; the section is left all the same.
   *
   * @throws IllegalArgumentException if {@code weight} is not positive or {@code work} is null
   */
  // ThreadPriorityCheck: Thread.yield() widens the window a lost update needs
  @SuppressWarnings("ThreadPriorityCheck")
  public void enter(int weight, Runnable work) {
    if (weight <= 0) {
      throw new IllegalArgumentException("weight must be positive: " + weight);
    }
    if (work == null) {
      throw new IllegalArgumentException("work must not be null");
    }
    maxInside.accumulateAndGet(inside.addAndGet(weight), Math::max);
    try {
      int read = counter;
      Thread.yield(); // widen the window a lost update needs
      work.run();
      counter = read + 1;
    } finally {
      inside.addAndGet(-weight);
    }
  }

  /**
   * Enters with a weight of one, records {@code fencingToken} as the token of this hold, counts one
   * entry, and leaves. Under a working lock the tokens are recorded in the order of the holds;
   * {@link #assertMutualExclusion(int)} checks that they rise strictly.
   */
  public void enterWithToken(long fencingToken) {
    enter(
        1,
        () -> {
          synchronized (tokens) {
            tokens.add(fencingToken);
          }
        });
  }

  /** Returns the counter: the number of entries, less any updates lost to overlapping callers. */
  public int counter() {
    return counter;
  }

  /** Returns the most weight that was ever inside at once; 0 before the first entry. */
  public int maxInside() {
    return maxInside.get();
  }

  /** Returns the weight inside now. */
  public int inside() {
    return inside.get();
  }

  /** Returns a copy of the tokens recorded by {@link #enterWithToken}, in the order recorded. */
  public List<Long> tokens() {
    synchronized (tokens) {
      return List.copyOf(tokens);
    }
  }

  /**
   * Checks mutual exclusion: the counter is exactly {@code expectedEntries} (no update was lost),
   * never was more than one inside at once, and the recorded fencing tokens, if any, rise strictly
   * in the order of the holds.
   *
   * @throws AssertionError saying which of these does not hold, with the numbers
   */
  public void assertMutualExclusion(int expectedEntries) {
    assertNeverAbove(1);
    if (counter != expectedEntries) {
      throw new AssertionError(
          "the counter is "
              + counter
              + " but "
              + expectedEntries
              + " entries were expected: "
              + (counter < expectedEntries
                  ? (expectedEntries - counter) + " lost to overlapping holds, or never made"
                  : (counter - expectedEntries) + " more than expected"));
    }
    List<Long> recorded = tokens();
    for (int i = 1; i < recorded.size(); i++) {
      if (recorded.get(i) <= recorded.get(i - 1)) {
        throw new AssertionError(
            "fencing tokens must rise strictly in the order of the holds, but hold "
                + i
                + " got "
                + recorded.get(i)
                + " after "
                + recorded.get(i - 1)
                + " (of "
                + recorded.size()
                + " holds)");
      }
    }
  }

  /**
   * Checks that never was more weight inside at once than {@code permits}.
   *
   * @throws AssertionError if at some time more was inside, saying how much
   */
  public void assertNeverAbove(int permits) {
    int most = maxInside.get();
    if (most > permits) {
      throw new AssertionError(
          "at most " + permits + " may be inside at once, but " + most + " were");
    }
  }

  @Override
  public String toString() {
    return "CriticalSection[counter=" + counter + ", maxInside=" + maxInside + "]";
  }

  private static void nothing() {}
}
