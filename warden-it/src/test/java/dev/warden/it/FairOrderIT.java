package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fair lock's order, checked on real clients (the model-based {@code ModelIT} drives the
 * scripts with a reference model of the client, never {@code Acquisition} itself, so it cannot see
 * the client lose a waiter's turn). Seeded random runs: {@value #CLIENTS} clients of {@value
 * #THREADS} threads each, every thread locking again at once after its unlock or after a short
 * random pause, holding for a random moment. Checked on every acquisition, while it holds the lock:
 *
 * <ul>
 *   <li><b>one holder</b>: nobody else is inside;
 *   <li><b>order</b>: no waiter whose lock() began more than {@link #MARGIN} before this one's is
 *       still waiting: the lock goes to the oldest queued waiter. The margin covers the time from
 *       lock() to the first attempt's refusal in Redis, which is what sets the order (a busy 2-core
 *       machine); a waiter that lost its turn waits a heartbeat (1 s) or more.
 * </ul>
 *
 * A grant that reached a client before the refusal that queued its waiter was read used to be given
 * back at once, the give-back granted on, and the waiter, out of the queue, came back only at its
 * heartbeat: later waiters overtook it (fails so with 8195ff7's parent in warden-core/src/main).
 * {@code -Dwarden.fairorder.seconds=N} runs N seconds (default {@value #DEFAULT_SECONDS}); {@code
 * -Dwarden.fairorder.seed=S} starts from seed S.
 */
@ExtendWith(WardenExtension.class)
class FairOrderIT {
  private static final int CLIENTS = 3;
  private static final int THREADS = 2;
  private static final int DEFAULT_SECONDS = 10;
  private static final long MARGIN = TimeUnit.MILLISECONDS.toNanos(500);
  private static final int ROUNDS_PER_RUN = 60;

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000) // a lost turn shows as a wait, not a re-check
  void theFairLockGoesToTheOldestWaiterAcrossClientsAndThreads(WardenFactory wardens)
      throws Exception {
    long seconds = Long.getLong("warden.fairorder.seconds", DEFAULT_SECONDS);
    long master = Long.getLong("warden.fairorder.seed", new SplittableRandom().nextLong());
    System.out.printf("fair order: master seed %d, for %d s%n", master, seconds);
    DistributedLock[] locks = new DistributedLock[CLIENTS];
    for (int c = 0; c < CLIENTS; c++) {
      locks[c] = wardens.create().fairLock("order");
    }
    SplittableRandom seeds = new SplittableRandom(master);
    List<String> broken = new ArrayList<>();
    int runs = 0;
    int acquisitions = 0;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() - end < 0 && broken.isEmpty()) {
      long seed = seeds.nextLong();
      acquisitions += run(locks, seed, broken);
      runs++;
    }
    System.out.printf(
        "fair order: %d runs, %d acquisitions, %d broken%n", runs, acquisitions, broken.size());
    assertThat(broken).as("acquisitions that overtook an older waiter, or overlapped").isEmpty();
  }

  /** One run of {@link #ROUNDS_PER_RUN} acquisitions per thread; returns how many were made. */
  private static int run(DistributedLock[] locks, long seed, List<String> broken)
      throws InterruptedException {
    int contenders = CLIENTS * THREADS;
    SplittableRandom[] random = new SplittableRandom[contenders];
    SplittableRandom split = new SplittableRandom(seed);
    for (int c = 0; c < contenders; c++) {
      random[c] = split.split();
    }
    AtomicLongArray asked = new AtomicLongArray(contenders); // 0: not waiting
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger taken = new AtomicInteger();
    StartGate.run(
        contenders,
        ROUNDS_PER_RUN,
        Duration.ofMinutes(1),
        contender -> {
          DistributedLock lock = locks[contender % CLIENTS];
          SplittableRandom r = random[contender];
          if (r.nextInt(3) == 0) {
            spin(r.nextLong(TimeUnit.MICROSECONDS.toNanos(2_000))); // think a moment first
          }
          long mine = System.nanoTime();
          asked.set(contender, mine);
          lock.lock();
          try {
            asked.set(contender, 0);
            taken.incrementAndGet();
            if (inside.incrementAndGet() != 1) {
              report(broken, seed, "two holders at once, contender " + contender);
            }
            for (int other = 0; other < contenders; other++) {
              long since = asked.get(other);
              if (since != 0 && mine - since > MARGIN) {
                report(
                    broken,
                    seed,
                    String.format(
                        "contender %d (client %d) took the lock while contender %d (client %d),"
                            + " which asked %d ms before it, still waited",
                        contender,
                        contender % CLIENTS,
                        other,
                        other % CLIENTS,
                        TimeUnit.NANOSECONDS.toMillis(mine - since)));
              }
            }
            spin(r.nextLong(TimeUnit.MICROSECONDS.toNanos(300))); // the critical section's work
            inside.decrementAndGet();
          } finally {
            lock.unlock();
          }
        });
    return taken.get();
  }

  private static void report(List<String> broken, long seed, String what) {
    synchronized (broken) {
      broken.add("seed " + seed + ": " + what);
    }
  }

  /** Works for {@code nanos} without giving up the processor: think time, not a wait for events. */
  private static void spin(long nanos) {
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() - until < 0) {
      Thread.onSpinWait();
    }
  }
}
