package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Mutual exclusion as an invariant: several Warden instances times several threads increment a
 * plain, non-atomic counter under the lock, released by a start gate. Every increment must count,
 * and the fencing tokens, recorded inside the critical section, must rise strictly.
 */
@ExtendWith(WardenExtension.class)
class MutualExclusionIT {
  private static final int WARDENS = 3;
  private static final int THREADS_PER_WARDEN = 4;
  private static final int ROUNDS = 150;

  /** Deliberately unsynchronized: only the distributed lock protects it. */
  private int counter;

  private final List<Long> tokens = new ArrayList<>();
  private int inside;
  private int maxInside;

  @Test
  void threadsOfSeveralWardensNeverOverlapAndTokensRiseStrictly(WardenFactory wardens)
      throws Exception {
    List<DistributedLock> locks = new ArrayList<>();
    for (int w = 0; w < WARDENS; w++) {
      locks.add(wardens.create().lock("counter"));
    }
    runContenders(
        locks,
        lock -> {
          lock.lock();
          try {
            enter(lock.fencingToken());
          } finally {
            lock.unlock();
          }
        });
    assertInvariants();
  }

  @Test
  void handlesOfSeveralWardensNeverOverlapAndTokensRiseStrictly(WardenFactory wardens)
      throws Exception {
    List<DistributedLock> locks = new ArrayList<>();
    for (int w = 0; w < WARDENS; w++) {
      locks.add(wardens.create().lock("counter-handles"));
    }
    runContenders(
        locks,
        lock -> {
          try (LockHandle hold = lock.acquire(Duration.ofSeconds(60))) {
            enter(hold.fencingToken());
          }
        });
    assertInvariants();
  }

  private void enter(long token) {
    inside++;
    maxInside = Math.max(maxInside, inside);
    int read = counter;
    Thread.yield(); // widen the race window a lost update would need
    counter = read + 1;
    tokens.add(token);
    inside--;
  }

  private void assertInvariants() {
    int expected = WARDENS * THREADS_PER_WARDEN * ROUNDS;
    assertThat(counter).isEqualTo(expected);
    assertThat(maxInside).isEqualTo(1);
    assertThat(tokens).hasSize(expected).isSorted().doesNotHaveDuplicates();
  }

  private interface Body {
    void run(DistributedLock lock) throws Exception;
  }

  private void runContenders(List<DistributedLock> locks, Body body) throws Exception {
    StartGate.run(
        locks.size() * THREADS_PER_WARDEN,
        ROUNDS,
        thread -> body.run(locks.get(thread % locks.size())));
  }
}
