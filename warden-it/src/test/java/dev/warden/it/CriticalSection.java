package dev.warden.it;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A critical section that checks the exclusion around it: it increments a plain, unsynchronized
 * counter with a read and a separate write (any overlap of two callers can lose an update), and
 * records the most weight (permits) ever inside at once.
 */
final class CriticalSection {
  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger maxInside = new AtomicInteger();
  private int counter; // deliberately unsynchronized: only the exclusion under test protects it

  /** Enters with {@code weight} permits, counts one, and leaves. */
  // ThreadPriorityCheck: Thread.yield() widens the window a lost update needs
  @SuppressWarnings("ThreadPriorityCheck")
  void enter(int weight) {
    maxInside.accumulateAndGet(inside.addAndGet(weight), Math::max);
    int read = counter;
    Thread.yield(); // widen the window a lost update needs
    counter = read + 1;
    inside.addAndGet(-weight);
  }

  int counter() {
    return counter;
  }

  int maxInside() {
    return maxInside.get();
  }
}
