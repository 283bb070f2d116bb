package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.Warden;
import dev.warden.testkit.Blocking;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link DistributedCountDownLatch} contract, run on every deployment: one server ({@code
 * LatchContractIT}), a Sentinel-managed master and a Redis Cluster (the {@code Sentinel...} and
 * {@code Cluster...} subclasses). Tests that need the single server itself (its data, a kill, a
 * child JVM) stay in {@code CountDownLatchIT}.
 */
@ExtendWith(WardenExtension.class)
abstract class LatchContract {
  /** Runs the blocking callers of each test; the common pool is too small for them on 2 cores. */
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  // ---- the CountDownLatch contract ----

  @Test
  void trySetCountSetsOnlyAnUnsetLatchOrOneAtZero(Warden warden) {
    DistributedCountDownLatch latch = warden.countDownLatch("set");
    assertThat(latch.getCount()).isZero();
    assertThat(latch.trySetCount(0)).as("open already: nothing to set").isTrue();
    assertThat(latch.trySetCount(2)).isTrue();
    assertThat(latch.trySetCount(5)).isFalse();
    assertThat(latch.trySetCount(0)).as("counting: cannot be set to zero").isFalse();
    assertThat(latch.getCount()).isEqualTo(2);
    latch.countDown();
    assertThat(latch.trySetCount(5)).as("still counting").isFalse();
    latch.countDown();
    assertThat(latch.trySetCount(5)).as("at zero: a new round").isTrue();
    assertThat(latch.getCount()).isEqualTo(5);
  }

  @Test
  void countDownLowersTheCountToZeroAndThenDoesNothing(Warden warden) throws Exception {
    DistributedCountDownLatch latch = warden.countDownLatch("down");
    latch.trySetCount(2);
    assertThat(latch.await(0, TimeUnit.SECONDS)).isFalse();
    latch.countDown();
    assertThat(latch.getCount()).isOne();
    latch.countDown();
    assertThat(latch.getCount()).isZero();
    latch.countDown();
    assertThat(latch.getCount()).isZero();
    assertThat(latch.await(0, TimeUnit.SECONDS)).isTrue();
    latch.await();
  }

  @Test
  void aTimedAwaitReturnsFalseAfterItsWaitAndLeavesTheCountAlone(Warden warden) throws Exception {
    DistributedCountDownLatch latch = warden.countDownLatch("timed");
    latch.trySetCount(1);
    long start = System.nanoTime();
    assertThat(latch.await(300, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 5_000L);
    assertThat(latch.await(-1, TimeUnit.SECONDS)).as("a negative wait: no wait").isFalse();
    assertThat(latch.getCount()).isOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
  }

  @Test
  void aNeverSetLatchIsOpen(Warden warden) throws Exception {
    DistributedCountDownLatch latch = warden.countDownLatch("never-set");
    latch.await();
    assertThat(latch.await(1, TimeUnit.MILLISECONDS)).isTrue();
    latch.countDown();
    assertThat(latch.getCount()).isZero();
  }

  // ---- waking ----

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void theLastCountDownWakesManyAwaitersAcrossWardensAtOnce(WardenFactory wardens)
      throws Exception {
    // with a one-minute re-check only the message can wake them in time
    DistributedCountDownLatch coordinator = wardens.create().countDownLatch("many");
    coordinator.trySetCount(3);
    List<Warden> awaiting = new ArrayList<>();
    List<CompletableFuture<Void>> awaiters = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      Warden warden = wardens.create();
      awaiting.add(warden);
      for (int t = 0; t < 5; t++) {
        DistributedCountDownLatch latch = warden.countDownLatch("many");
        awaiters.add(Blocking.run(latch::await, threads));
      }
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> awaiting.stream().allMatch(w -> w.stats().acquisitions() == 5));
    coordinator.countDown();
    coordinator.countDown();
    assertThat(awaiters).noneMatch(CompletableFuture::isDone);

    long start = System.nanoTime();
    wardens.create().countDownLatch("many").countDown();
    CompletableFuture.allOf(awaiters.toArray(new CompletableFuture<?>[0]))
        .get(20, TimeUnit.SECONDS);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000L);
    for (Warden warden : awaiting) {
      await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
    }
  }

  @Test
  void deleteWakesAwaitersAndTellsWhetherTheLatchExisted(WardenFactory wardens) throws Exception {
    Warden awaiting = wardens.create();
    DistributedCountDownLatch latch = wardens.create().countDownLatch("deleted");
    assertThat(latch.delete()).isFalse();
    latch.trySetCount(7);
    CompletableFuture<Boolean> awaiter =
        Blocking.supply(
            () -> awaiting.countDownLatch("deleted").await(30, TimeUnit.SECONDS), threads);
    await().atMost(Duration.ofSeconds(10)).until(() -> awaiting.stats().subscriptions() == 1);
    assertThat(latch.delete()).isTrue();
    assertThat(awaiter.get(10, TimeUnit.SECONDS)).as("the deleted latch is open").isTrue();
    assertThat(latch.getCount()).isZero();
    assertThat(latch.trySetCount(1)).isTrue();
  }

  @Test
  void anInterruptedAwaiterThrowsAndLeavesNoSubscription(Warden warden) throws Exception {
    DistributedCountDownLatch latch = warden.countDownLatch("interrupted");
    latch.trySetCount(1);
    Waiters.interruptOnceWaiting(latch::await, () -> warden.stats().subscriptions() == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
    assertThat(warden.stats().acquisitions()).isZero();
    assertThat(latch.getCount()).isOne();
    Thread.currentThread().interrupt();
    assertThatThrownBy(latch::await)
        .isInstanceOf(InterruptedException.class)
        .hasMessageContaining("count-down latch 'interrupted'");
  }

  @Test
  void badArgumentsAreRejectedNamingTheValue(Warden warden) {
    DistributedCountDownLatch latch = warden.countDownLatch("args");
    assertThatThrownBy(() -> latch.trySetCount(-1))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("count must not be negative: -1");
    assertThatThrownBy(() -> latch.await(1, null))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit must not be null");
    assertThatThrownBy(() -> warden.countDownLatch(null))
        .hasMessage("name must not be null or blank: 'null'");
    assertThat(latch.getCount()).isZero();
  }
}
