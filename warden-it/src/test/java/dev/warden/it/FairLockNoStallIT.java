package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fair lock never stalls (free, with waiters, and nobody acquiring) under a randomized mix of
 * {@code lock}, {@code tryLock} with and without waits, and interrupted {@code lockInterruptibly},
 * across several Warden instances; mutual exclusion holds throughout. {@code -Dwarden.soak=true}
 * runs it ten times longer.
 */
@ExtendWith(WardenExtension.class)
class FairLockNoStallIT {
  private static final int WARDENS = 3;
  private static final int THREADS = 6;
  private static final int OPERATIONS = Boolean.getBoolean("warden.soak") ? 600 : 60;

  private int counter; // protected by the fair lock only
  private final AtomicInteger entered = new AtomicInteger();

  @Test
  // FutureReturnValueIgnored: the chaos task runs until shutdown; its future would only say it was
  // cancelled
  @SuppressWarnings("FutureReturnValueIgnored")
  void neverStallsUnderARandomMixOfLockTryLockAndInterrupts(
      RedisServer redis, WardenFactory wardens) throws Exception {
    List<DistributedLock> locks = new ArrayList<>();
    for (int w = 0; w < WARDENS; w++) {
      locks.add(wardens.create().fairLock("chaos"));
    }
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    ScheduledExecutorService chaos = Executors.newSingleThreadScheduledExecutor();
    List<Thread> workers = new ArrayList<>();
    CountDownLatch gate = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < THREADS; t++) {
        DistributedLock lock = locks.get(t % WARDENS);
        long seed = 17L * t + 1;
        done.add(
            pool.submit(
                () -> {
                  synchronized (workers) {
                    workers.add(Thread.currentThread());
                  }
                  gate.await();
                  work(lock, new SplittableRandom(seed));
                  return null;
                }));
      }
      gate.countDown();
      SplittableRandom pick = new SplittableRandom(99);
      chaos.scheduleAtFixedRate(
          () -> {
            synchronized (workers) {
              if (!workers.isEmpty()) {
                workers.get(pick.nextInt(workers.size())).interrupt();
              }
            }
          },
          5,
          7,
          TimeUnit.MILLISECONDS);
      for (Future<?> f : done) {
        f.get(
            Boolean.getBoolean("warden.soak") ? 600 : 120, TimeUnit.SECONDS); // a stall fails here
      }
    } finally {
      chaos.shutdownNow();
      pool.shutdownNow();
    }
    assertThat(counter).isEqualTo(entered.get());
    assertThat(locks.get(0).isLocked()).isFalse();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard("warden:{chaos}:fair:queue") == 0);
  }

  // ThreadPriorityCheck: Thread.yield() widens the window a lost update needs
  @SuppressWarnings("ThreadPriorityCheck")
  private void work(DistributedLock lock, SplittableRandom random) {
    for (int i = 0; i < OPERATIONS; i++) {
      Thread.interrupted(); // a stray interrupt from the chaos thread belongs to one operation
      boolean acquired;
      try {
        acquired =
            switch (random.nextInt(4)) {
              case 0 -> {
                lock.lock();
                yield true;
              }
              case 1 -> lock.tryLock();
              case 2 -> lock.tryLock(random.nextInt(1, 60), TimeUnit.MILLISECONDS);
              default -> {
                lock.lockInterruptibly();
                yield true;
              }
            };
      } catch (InterruptedException e) {
        continue; // gave up waiting: must have left the queue
      }
      if (acquired) {
        try {
          entered.incrementAndGet();
          int read = counter;
          Thread.yield();
          counter = read + 1;
        } finally {
          lock.unlock();
        }
      }
    }
  }
}
