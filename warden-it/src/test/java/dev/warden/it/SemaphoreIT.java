package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedSemaphore;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link DistributedSemaphore} on one server, where a test needs the server itself (its keys, a
 * kill, a child JVM); the contract on every deployment is {@link SemaphoreContract}.
 */
@ExtendWith(WardenExtension.class)
class SemaphoreIT {
  /** Runs the blocking callers of each test; the common pool is too small for them on 2 cores. */
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static final String QUEUE = "warden:{%s}:semaphore:queue";

  @Test
  void aTimedTryAcquireGivesUpAfterItsWaitAndLeavesNothingBehind(RedisServer redis, Warden warden)
      throws Exception {
    DistributedSemaphore semaphore = warden.semaphore("timed");
    semaphore.trySetPermits(1);
    long start = System.nanoTime();
    assertThat(semaphore.tryAcquire(2, 300, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 5_000L);
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
    assertThat(redis.redis().exists(String.format(QUEUE, "timed"))).as("left the queue").isZero();
    assertThat(semaphore.availablePermits()).isEqualTo(1);
    assertThat(semaphore.tryAcquire()).as("its reservation went with it").isTrue();
  }

  @Test
  void permitsReleasedOneByOneGoToTheWaiterForSeveralBeforeLaterSingleWaiters(
      RedisServer redis, WardenFactory wardens) throws Exception {
    String queue = String.format(QUEUE, "one-by-one");
    DistributedSemaphore holders = wardens.create().semaphore("one-by-one");
    holders.trySetPermits(3);
    holders.acquire(3);
    Warden waiters = wardens.create();
    DistributedSemaphore waiter = waiters.semaphore("one-by-one");
    CompletableFuture<Void> large = Blocking.run(() -> waiter.acquire(3), threads);
    await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().zcard(queue) == 1);
    List<CompletableFuture<Void>> singles = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      DistributedSemaphore single = waiters.semaphore("one-by-one");
      singles.add(Blocking.run(() -> single.acquire(1), threads));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().zcard(queue) == 3);

    // Without the reservation the single waiters would take the first two released permits, and
    // the waiter for three would wait as long as anyone keeps taking single permits.
    holders.release();
    holders.release();
    holders.release();
    large.get(10, TimeUnit.SECONDS);
    assertThat(singles).noneMatch(CompletableFuture::isDone);

    holders.release(3); // what the waiter for three took, given back on its behalf
    CompletableFuture.allOf(singles.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
    assertThat(holders.availablePermits()).isOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().exists(queue) == 0);
  }

  @Test
  void interruptingAWaiterTakesNoPermitAndLeavesTheQueue(RedisServer redis, Warden warden)
      throws Exception {
    DistributedSemaphore semaphore = warden.semaphore("interrupted");
    semaphore.trySetPermits(1);
    Waiters.interruptOnceWaiting(
        () -> semaphore.acquire(2),
        () -> redis.redis().zcard(String.format(QUEUE, "interrupted")) == 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().exists(String.format(QUEUE, "interrupted")) == 0);
    assertThat(semaphore.availablePermits()).isOne();
    Thread.currentThread().interrupt();
    assertThatThrownBy(semaphore::acquire)
        .isInstanceOf(InterruptedException.class)
        .hasMessageContaining("'interrupted'");
    assertThat(semaphore.availablePermits()).isOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
    assertThat(warden.stats().acquisitions()).isZero();
  }

  @Test
  void oneSemaphorePermitExcludesAnotherProcessAndThisOne(RedisServer redis, WardenFactory wardens)
      throws Exception {
    // the counter lives in Redis, incremented with a separate read and write under the permit
    DistributedSemaphore semaphore = wardens.create().semaphore("processes");
    semaphore.trySetPermits(1);
    AtomicInteger overlaps = new AtomicInteger();
    try (JvmProcess worker =
        JvmProcess.start(SemaphoreWorkerMain.class, redis.uri(), "processes", "100")) {
      worker.awaitLine("READY", Duration.ofSeconds(60));
      redis.redis().lpush("gate:processes", "go");
      List<CompletableFuture<Void>> local = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        local.add(
            Blocking.run(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    overlaps.addAndGet(
                        SemaphoreWorkerMain.countOnce(semaphore, redis.redis(), "processes"));
                  }
                },
                threads));
      }
      assertThat(worker.awaitLine("DONE", Duration.ofMinutes(2))).isEqualTo("DONE overlaps=0");
      CompletableFuture.allOf(local.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    }
    assertThat(overlaps.get()).isZero();
    assertThat(redis.redis().get("counter:processes")).isEqualTo("200");
    assertThat(semaphore.availablePermits()).isOne();
  }

  // ---- faults ----

  @Test
  void aWaiterWhoseProcessDiedHoldsUpTheQueueOnlyBriefly(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedSemaphore semaphore = wardens.create().semaphore("dead-waiter");
    semaphore.trySetPermits(2);
    try (JvmProcess waiter =
        JvmProcess.start(SemaphoreWorkerMain.class, redis.uri(), "dead-waiter", "wait:5")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> redis.redis().zcard(String.format(QUEUE, "dead-waiter")) == 1);
      assertThat(semaphore.tryAcquire()).as("reserved for the live waiter").isFalse();
      waiter.kill();
    }
    long start = System.nanoTime();
    assertThat(semaphore.tryAcquire(2, 20, TimeUnit.SECONDS)).isTrue();
    // the entry lapses 2 s after the last refresh; the margin is for a busy machine
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000L);
  }

  @Test
  @WardenOptions(commandTimeoutMillis = 1_000)
  void withRedisDownCallsFailNamingTheSemaphore(RedisServer redis, Warden warden) {
    DistributedSemaphore semaphore = warden.semaphore("down");
    semaphore.trySetPermits(1);
    redis.kill();
    assertThatThrownBy(semaphore::release)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("semaphore 'down'");
    assertThatThrownBy(() -> semaphore.tryAcquire(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("semaphore 'down': acquire failed");
    assertThatThrownBy(semaphore::availablePermits)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("semaphore 'down'");
  }

  @Test
  void aKeyOfAnotherTypeIsReportedAndLeftAlone(RedisServer redis, Warden warden) {
    redis.redis().hset("warden:{typed}:semaphore", "a", "b");
    DistributedSemaphore semaphore = warden.semaphore("typed");
    assertThatThrownBy(semaphore::tryAcquire)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("semaphore 'typed'")
        .hasMessageContaining("not a Warden object");
    assertThat(redis.redis().hget("warden:{typed}:semaphore", "a")).isEqualTo("b");
  }
}
