package dev.warden.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What ShedLock's published suite does not cover: stale unlocks and extends (the "safe update"
 * cases), lockAtLeastFor across two instances, keep-alive from ShedLock's scheduler thread.
 */
@ExtendWith(WardenExtension.class)
class WardenShedLockIT {
  private static final String KEY = "warden:{shedlock:job}:lock";

  private static LockConfiguration config(Duration atMost, Duration atLeast) {
    return new LockConfiguration(ClockProvider.now(), "job", atMost, atLeast);
  }

  @Test
  void aLateUnlockAfterExpiryDoesNotFreeAnotherOwnersLock(
      RedisServer redis, WardenFactory wardens) {
    WardenLockProvider first = new WardenLockProvider(wardens.create());
    WardenLockProvider second = new WardenLockProvider(wardens.create());
    SimpleLock late = first.lock(config(Duration.ofMillis(100), Duration.ZERO)).orElseThrow();
    await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(KEY) == 0);
    SimpleLock current = second.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();

    late.unlock(); // logged, not thrown

    assertThat(redis.redis().exists(KEY)).isEqualTo(1);
    assertThat(first.lock(config(Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
    current.unlock();
    assertThat(redis.redis().exists(KEY)).isZero();
  }

  @Test
  void aLateExtendAfterExpiryIsEmptyAndLeavesAnotherOwnersLease(
      RedisServer redis, WardenFactory wardens) {
    WardenLockProvider first = new WardenLockProvider(wardens.create());
    WardenLockProvider second = new WardenLockProvider(wardens.create());
    SimpleLock late = first.lock(config(Duration.ofMillis(100), Duration.ZERO)).orElseThrow();
    await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(KEY) == 0);
    SimpleLock current = second.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
    long ttlBefore = redis.redis().pttl(KEY);

    assertThat(late.extend(Duration.ofMinutes(10), Duration.ZERO)).isEmpty();

    assertThat(redis.redis().pttl(KEY)).isBetween(1L, ttlBefore);
    current.unlock();
  }

  @Test
  void anUnlockInsideLockAtLeastForKeepsTheLockFromOtherInstancesUntilThen(
      RedisServer redis, WardenFactory wardens) {
    WardenLockProvider first = new WardenLockProvider(wardens.create());
    WardenLockProvider second = new WardenLockProvider(wardens.create());
    first.lock(config(Duration.ofSeconds(30), Duration.ofMillis(800))).orElseThrow().unlock();

    assertThat(second.lock(config(Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 800L);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> second.lock(config(Duration.ofSeconds(30), Duration.ZERO)).isPresent());
  }

  @Test
  void theKeyPrefixIsConfigurable(RedisServer redis, Warden warden) {
    WardenLockProvider provider = new WardenLockProvider(warden, "billing:");
    SimpleLock lock = provider.lock(config(Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
    assertThat(redis.redis().exists("warden:{billing:job}:lock")).isEqualTo(1);
    assertThat(provider.lockName("job")).isEqualTo("billing:job");
    lock.unlock();
  }

  @Test
  void keepAliveExtendsTheLockFromItsSchedulerThread(RedisServer redis, Warden warden)
      throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      // KeepAliveLockProvider's shortest lockAtMostFor is 30 s; it extends every half of it
      KeepAliveLockProvider keepAlive =
          new KeepAliveLockProvider(new WardenLockProvider(warden), scheduler);
      Optional<SimpleLock> lock = keepAlive.lock(config(Duration.ofSeconds(30), Duration.ZERO));
      assertThat(lock).isPresent();
      assertThat(warden.stats().renewedHolds()).isZero(); // no watchdog: a fixed lease

      await().atMost(Duration.ofSeconds(25)).until(() -> redis.redis().pttl(KEY) < 16_000);
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().pttl(KEY) > 25_000);

      lock.orElseThrow().unlock();
      assertThat(redis.redis().exists(KEY)).isZero();
    } finally {
      scheduler.shutdownNow();
    }
  }
}
