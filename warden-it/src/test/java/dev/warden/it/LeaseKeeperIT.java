package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
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
  void exactlyTheHoldsARenewalFindsGoneAreReportedLost(RedisServer redis, Warden warden)
      throws Exception {
    List<LockHandle> handles = new ArrayList<>();
    for (int i = 0; i < HOLDS; i++) {
      handles.add(warden.lock("listed-" + i).acquire(Duration.ZERO));
    }
    // every 7th lock vanishes: several per batch, at indices the keeper must map back to holds
    List<LockHandle> gone = new ArrayList<>();
    List<LockHandle> kept = new ArrayList<>();
    for (int i = 0; i < HOLDS; i++) {
      if (i % 7 == 3) {
        redis.redis().del("warden:{listed-" + i + "}:lock");
        gone.add(handles.get(i));
      } else {
        kept.add(handles.get(i));
      }
    }
    for (LockHandle handle : gone) {
      handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().renewedHolds() == kept.size());

    redis.redis().configResetstat();
    await() // a full round after the losses: the kept holds are still renewed
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.commandCalls().getOrDefault("pexpire", 0L) >= kept.size());
    for (LockHandle handle : kept) {
      assertThat(handle.leaseLost().toCompletableFuture()).isNotDone();
      handle.close();
    }
    for (LockHandle handle : gone) {
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    }
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600)
  void readAndExclusiveHoldsAreRenewedByTheirOwnScriptsInOneRoundAndLostApart(
      RedisServer redis, Warden warden) throws Exception {
    LockHandle read = warden.readWriteLock("mixed-read").readLock().acquire(Duration.ZERO);
    LockHandle exclusive = warden.lock("mixed-exclusive").acquire(Duration.ZERO);
    redis.redis().configResetstat();
    // two rounds: rw-read-renew moves the reader's deadline (ZADD), both scripts check (HEXISTS)
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              Map<String, Long> calls = redis.commandCalls();
              return calls.getOrDefault("zadd", 0L) >= 2L
                  && calls.getOrDefault("hexists", 0L) >= 4L;
            });

    redis.redis().del("warden:{mixed-read}:rw:reads", "warden:{mixed-read}:rw:readers");
    read.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().renewedHolds() == 1);
    assertThat(exclusive.leaseLost().toCompletableFuture()).isNotDone();
    exclusive.close();
    assertThatThrownBy(read::close).isInstanceOf(LeaseExpiredException.class);
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
