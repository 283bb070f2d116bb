package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks used from virtual threads. Warden is compiled for Java 17, so the virtual-thread executor
 * is reached by reflection; these tests run only on a JDK that has it.
 */
@ExtendWith(WardenExtension.class)
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsIT {
  private static final int TASKS = 200;
  private static final int ROUNDS = 3;

  private int counter; // protected by the distributed lock only

  @Test
  void manyVirtualThreadsCountExactlyWithThreadBoundHolds(WardenFactory wardens) throws Exception {
    List<DistributedLock> locks =
        List.of(wardens.create().lock("virtual"), wardens.create().lock("virtual"));
    ExecutorService pool = virtualThreads();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < TASKS; t++) {
        DistributedLock lock = locks.get(t % 2);
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < ROUNDS; i++) {
                    lock.lock();
                    try {
                      counter++;
                    } finally {
                      lock.unlock();
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(counter).isEqualTo(TASKS * ROUNDS);
  }

  @Test
  void aHandleTakenOnOneVirtualThreadIsClosedOnAnother(WardenFactory wardens) throws Exception {
    DistributedLock lock = wardens.create().lock("virtual-handle");
    ExecutorService pool = virtualThreads();
    try {
      LockHandle handle =
          pool.submit(() -> lock.acquire(Duration.ofSeconds(5))).get(10, TimeUnit.SECONDS);
      assertThat(handle.isHeld()).isTrue();
      CompletableFuture.runAsync(handle::close, pool).get(10, TimeUnit.SECONDS);
      assertThat(lock.isLocked()).isFalse();
    } finally {
      pool.shutdownNow();
    }
  }

  private static ExecutorService virtualThreads() throws ReflectiveOperationException {
    return (ExecutorService)
        Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
  }
}
