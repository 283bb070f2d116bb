package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenStats;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 100,000 distinct lock names taken and released: the client's threads, its own bookkeeping and its
 * heap (after GC) stay flat, and Redis is left with nothing but the fence counters and the
 * short-lived release markers, which expire.
 */
@ExtendWith(WardenExtension.class)
class GrowthIT {
  private static final int NAMES = 100_000;
  private static final int WORKERS = 16;

  @Test
  void hundredThousandDistinctLocksLeaveNoGrowthBehind(RedisServer redis, Warden warden)
      throws Exception {
    ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
    try {
      takeAndRelease(warden, workers, "warm-up-", 5_000);
      redis.flushAll();
      int threadsBefore = clientThreads();
      long heapBefore = usedHeapAfterGc();

      takeAndRelease(warden, workers, "growth-", NAMES);

      int threadsAfter = clientThreads();
      long heapAfter = usedHeapAfterGc();
      System.out.printf(
          "GrowthIT: %d locks; threads %d -> %d; heap after GC %.1f MB -> %.1f MB%n",
          NAMES, threadsBefore, threadsAfter, heapBefore / 1e6, heapAfter / 1e6);
      assertThat(threadsAfter).as("threads").isLessThanOrEqualTo(threadsBefore + 1);
      // a leak of one small object per name would be several MB; the slack covers GC noise
      assertThat(heapAfter - heapBefore).as("heap growth, bytes").isLessThan(8_000_000L);
      WardenStats stats = warden.stats();
      assertThat(
              List.of(
                  stats.holds(),
                  stats.renewedHolds(),
                  stats.subscriptions(),
                  stats.acquisitions(),
                  stats.parkedWaiters()))
          .as("nothing held, renewed, subscribed or waiting: %s", stats)
          .containsOnly(0);
      assertThat(warden.activity().holds()).isEmpty();
      List<String> fences = redis.redis().keys("*:lock:fence");
      assertThat(fences).hasSize(NAMES);
      assertThat(redis.redis().pttl(fences.get(0))).as("fence counters expire").isPositive();
      // each last release leaves its marker (so that a retried release can tell its own earlier
      // run from a lost hold) for a short while: nothing else is left
      List<String> markers = redis.redis().keys("*:lock:unlocked:*");
      assertThat(redis.redis().dbsize()).isEqualTo((long) NAMES + markers.size());
      for (String marker : markers.subList(0, Math.min(10, markers.size()))) {
        assertThat(redis.redis().pttl(marker)).as("release markers expire").isPositive();
      }
    } finally {
      workers.shutdownNow();
      assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void takeAndRelease(
      Warden warden, ExecutorService workers, String prefix, int count) throws Exception {
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      int worker = w;
      done.add(
          workers.submit(
              () -> {
                for (int i = worker; i < count; i += WORKERS) {
                  DistributedLock lock = warden.lock(prefix + i);
                  if (!lock.tryLock()) {
                    throw new AssertionError("a fresh lock was taken: " + prefix + i);
                  }
                  lock.unlock();
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(120, TimeUnit.SECONDS);
    }
  }

  /** Live threads, less the common pool's, whose size the JVM chooses on demand. */
  private static int clientThreads() {
    return (int)
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> !t.getName().startsWith("ForkJoinPool.commonPool"))
            .count();
  }

  private static long usedHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
