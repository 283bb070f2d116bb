package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link LeasedSemaphore} on one server, where a test needs the server itself (its keys and
 * clock, a kill); the contract on every deployment is {@link LeasedSemaphoreContract}.
 */
@ExtendWith(WardenExtension.class)
class LeasedSemaphoreIT {

  private static String leases(String name) {
    return "warden:{" + name + "}:leased-semaphore:leases";
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 20_000)
  void tryAcquireWithoutALeaseLeasesForTheWatchdogTimeout(RedisServer redis, Warden warden) {
    LeasedSemaphore semaphore = warden.leasedSemaphore("default-lease");
    semaphore.trySetPermits(1);
    String id = semaphore.tryAcquire();
    assertThat(id).isNotNull();
    double ends = redis.redis().zscore(leases("default-lease"), id);
    assertThat(ends - serverMillis(redis)).isBetween(10_000.0, 20_000.0);
  }

  @Test
  void updateLeaseTimeSetsTheLeaseOfALivePermitFromNow(RedisServer redis, Warden warden)
      throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("renewed");
    semaphore.trySetPermits(1);
    String id = semaphore.acquire(1, TimeUnit.SECONDS);
    assertThat(semaphore.updateLeaseTime(id, 60, TimeUnit.SECONDS)).isTrue();
    double ends = redis.redis().zscore(leases("renewed"), id);
    assertThat(ends - serverMillis(redis)).isBetween(50_000.0, 60_000.0);
    assertThat(semaphore.updateLeaseTime(id, 2, TimeUnit.SECONDS))
        .as("shorter is allowed")
        .isTrue();
    ends = redis.redis().zscore(leases("renewed"), id);
    assertThat(ends - serverMillis(redis)).isLessThanOrEqualTo(2_000.0);
    assertThat(semaphore.updateLeaseTime("f".repeat(32), 1, TimeUnit.SECONDS)).isFalse();
    semaphore.release(id);
  }

  @Test
  void noCallReturnsMoreThanAHundredExpiredPermitsToThePool(RedisServer redis, Warden warden)
      throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("many-expired");
    semaphore.trySetPermits(0);
    // 150 permits whose leases ended a second ago, as if their holders had all died
    double ended = serverMillis(redis) - 1_000;
    for (int i = 0; i < 150; i++) {
      redis.redis().zadd(leases("many-expired"), ended, String.format("%032x", i));
    }
    assertThat(semaphore.availablePermits()).isEqualTo(150);

    String id = semaphore.acquire(60, TimeUnit.SECONDS);
    assertThat(redis.redis().zcard(leases("many-expired"))).as("50 left, 1 new").isEqualTo(51);
    assertThat(semaphore.availablePermits()).isEqualTo(149);
    semaphore.tryAcquire(0, 60, TimeUnit.SECONDS);
    assertThat(redis.redis().zcard(leases("many-expired"))).isEqualTo(2);
    semaphore.release(id);
    assertThat(semaphore.availablePermits()).isEqualTo(149);
  }

  // ---- faults and bad input ----

  @Test
  @WardenOptions(commandTimeoutMillis = 1_000)
  void withRedisDownCallsFailNamingTheSemaphore(RedisServer redis, Warden warden) {
    LeasedSemaphore semaphore = warden.leasedSemaphore("down");
    semaphore.trySetPermits(1);
    redis.kill();
    assertThatThrownBy(semaphore::tryAcquire)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("leased semaphore 'down'");
    assertThatThrownBy(() -> semaphore.tryRelease("f".repeat(32)))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("leased semaphore 'down'");
  }

  @Test
  void badArgumentsAreRejectedNamingTheValue(Warden warden) {
    LeasedSemaphore semaphore = warden.leasedSemaphore("args");
    assertThatThrownBy(() -> semaphore.trySetPermits(-3))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must not be negative: -3");
    assertThatThrownBy(() -> semaphore.release(null))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("permitId must not be null or blank: null");
    assertThatThrownBy(() -> semaphore.tryRelease(""))
        .hasMessage("permitId must not be null or blank: ''");
    assertThatThrownBy(() -> semaphore.updateLeaseTime(null, 1, TimeUnit.SECONDS))
        .hasMessage("permitId must not be null or blank: null");
    assertThatThrownBy(() -> semaphore.updateLeaseTime("f".repeat(32), 0, TimeUnit.SECONDS))
        .hasMessage("leaseTime must be positive: 0 SECONDS");
    assertThatThrownBy(() -> semaphore.acquire(-1, TimeUnit.SECONDS))
        .hasMessage("leaseTime must be positive: -1 SECONDS");
    assertThatThrownBy(() -> semaphore.tryAcquire(-1, 10, TimeUnit.SECONDS))
        .hasMessage("waitTime must not be negative: -1 SECONDS");
    assertThatThrownBy(() -> semaphore.tryAcquire(1, 10, null)).hasMessage("unit must not be null");
    assertThatThrownBy(() -> warden.leasedSemaphore("}"))
        .hasMessageContaining("must not contain '{' or '}'");
    assertThat(semaphore.availablePermits()).isZero();
  }

  private static double serverMillis(RedisServer redis) {
    List<String> time = redis.redis().time();
    return Long.parseLong(time.get(0)) * 1000.0 + Long.parseLong(time.get(1)) / 1000.0;
  }
}
