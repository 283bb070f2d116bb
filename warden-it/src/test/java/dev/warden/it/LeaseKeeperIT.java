package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The lease keeper: batched renewal, one ticker, and telling holders cut off from Redis. */
@ExtendWith(WardenExtension.class)
class LeaseKeeperIT {
  private static final int HOLDS = 600; // 256 per script call: 3 calls per renewal round

  @Test
  @WardenOptions(watchdogTimeoutMillis = 900)
  void manyHoldsAreRenewedInAFewBatchedScriptCallsPerRound(RedisServer redis, Warden warden)
      throws Exception {
    List<LockHandle> handles = new ArrayList<>();
    for (int i = 0; i < HOLDS; i++) {
      handles.add(warden.lock("batch-" + i).acquire(Duration.ZERO));
    }
    assertThat(warden.stats().renewedHolds()).isEqualTo(HOLDS);
    redis.redis().configResetstat();

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.commandCalls().getOrDefault("pexpire", 0L) >= 2L * HOLDS);
    Map<String, Long> calls = redis.commandCalls();
    for (LockHandle handle : handles) {
      handle.close();
    }
    // Rounds renew in batches of 256, 256 and 88 holds, each batch one atomic script call, so
    // whatever the snapshot caught, every script call renewed at least 88 and at most 256.
    long renewed = calls.get("pexpire");
    long scriptCalls = calls.get("evalsha");
    assertThat(scriptCalls * 256).isGreaterThanOrEqualTo(renewed);
    assertThat(scriptCalls * 88).isLessThanOrEqualTo(renewed);
    assertThat(calls.getOrDefault("hexists", 0L)).isEqualTo(renewed);
    await().atMost(Duration.ofSeconds(5)).until(() -> !warden.stats().leaseKeeperRunning());
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 900)
  void theTickerGoesQuietOnceNoHoldIsLeftAndStartsAgainForTheNextHold(
      RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("quiet");
    lock.lock();
    assertThat(warden.stats().leaseKeeperRunning()).isTrue();
    lock.unlock();
    // the first tick (every 300 ms) that finds no hold stops the ticker
    await().atMost(Duration.ofSeconds(5)).until(() -> !warden.stats().leaseKeeperRunning());

    LockHandle handle = lock.acquire(Duration.ZERO);
    assertThat(warden.stats().leaseKeeperRunning()).isTrue();
    redis.redis().configResetstat();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.commandCalls().getOrDefault("pexpire", 0L) >= 2L);
    assertThat(handle.leaseLost().toCompletableFuture()).isNotDone();
    handle.close();
    await().atMost(Duration.ofSeconds(5)).until(() -> !warden.stats().leaseKeeperRunning());
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 900)
  void aHolderCutOffFromRedisIsToldByItsLeasesLocalDeadline(RedisServer redis, Warden warden)
      throws Exception {
    DistributedLock lock = warden.lock("cut-off");
    LockHandle handle = lock.acquire(Duration.ZERO);
    CompletableFuture<Void> lost = handle.leaseLost().toCompletableFuture();
    long start = System.nanoTime();
    redis.pause(Duration.ofSeconds(5)); // no renewal can succeed; Redis never says "gone"
    lost.get(4, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).as("by the 900 ms deadline, plus a tick").isLessThan(2_500L);
    redis.resume();
  }
}
