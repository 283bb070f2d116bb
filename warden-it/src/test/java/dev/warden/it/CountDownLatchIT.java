package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.KillArgs;
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
 * The {@link DistributedCountDownLatch} on one server, where a test needs the server itself (a
 * killed connection, its keys, a kill); the contract on every deployment is {@link LatchContract}.
 */
@ExtendWith(WardenExtension.class)
class CountDownLatchIT {
  /** Runs the blocking callers of each test; the common pool is too small for them on 2 cores. */
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void awaitersWakeAfterTheirPubSubConnectionWasKilled(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden awaiting = wardens.create();
    DistributedCountDownLatch coordinator = wardens.create().countDownLatch("killed");
    coordinator.trySetCount(1);
    List<CompletableFuture<Void>> awaiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DistributedCountDownLatch latch = awaiting.countDownLatch("killed");
      awaiters.add(Blocking.run(latch::await, threads));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> awaiting.stats().subscriptions() == 1);

    assertThat(redis.redis().clientKill(KillArgs.Builder.typePubsub())).isGreaterThanOrEqualTo(1);
    coordinator.countDown(); // its message may be published while the connection is down

    long start = System.nanoTime();
    CompletableFuture.allOf(awaiters.toArray(new CompletableFuture<?>[0]))
        .get(20, TimeUnit.SECONDS);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000L);
    await().atMost(Duration.ofSeconds(10)).until(() -> awaiting.stats().subscriptions() == 0);
  }

  @Test
  void awaitersNoticeALatchOpenedWithoutAMessageAtTheirNextRecheck(RedisServer redis, Warden warden)
      throws Exception {
    DistributedCountDownLatch latch = warden.countDownLatch("silent");
    latch.trySetCount(1);
    CompletableFuture<Void> awaiter = Blocking.run(latch::await, threads);
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 1);
    redis.redis().del("warden:{silent}:latch"); // as if the message were lost
    awaiter.get(10, TimeUnit.SECONDS);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void anAwaiterDoesNotMissAnOpeningWhenTheLatchIsSetAgainBeforeItLooks(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden slow = wardens.create(builder -> builder.uri(proxy.uri()));
      DistributedCountDownLatch latch = wardens.create().countDownLatch("rearmed");
      assertThat(latch.trySetCount(1)).isTrue();
      CompletableFuture<Boolean> opened =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return slow.countDownLatch("rearmed").await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              },
              threads);
      await().atMost(Duration.ofSeconds(5)).until(() -> slow.stats().parkedWaiters() == 1);
      proxy.delay(Duration.ofMillis(300)); // the awaiter hears of the opening, and looks, late
      latch.countDown();
      assertThat(latch.trySetCount(1)).as("set again before the awaiter looked").isTrue();
      assertThat(opened.get(15, TimeUnit.SECONDS)).as("the awaiter saw its opening").isTrue();
      assertThat(latch.getCount()).isEqualTo(1);
    }
  }

  // ---- faults and bad input ----

  @Test
  @WardenOptions(commandTimeoutMillis = 1_000)
  void withRedisDownCallsFailNamingTheLatch(RedisServer redis, Warden warden) {
    DistributedCountDownLatch latch = warden.countDownLatch("down");
    latch.trySetCount(1);
    redis.kill();
    assertThatThrownBy(latch::countDown)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("count-down latch 'down'");
    assertThatThrownBy(() -> latch.await(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("count-down latch 'down': await failed");
  }

  @Test
  void aKeyOfAnotherTypeIsReportedAndLeftAlone(RedisServer redis, Warden warden) {
    redis.redis().set("warden:{typed}:latch", "not a latch");
    DistributedCountDownLatch latch = warden.countDownLatch("typed");
    assertThatThrownBy(latch::countDown)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("count-down latch 'typed'")
        .hasMessageContaining("not a Warden object");
    assertThatThrownBy(latch::delete).isInstanceOf(WardenException.class);
    assertThat(redis.redis().get("warden:{typed}:latch")).isEqualTo("not a latch");
  }
}
