package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /**
   * A release whose reply is lost is sent again; the run that finds the permit gone must tell its
   * own earlier run (a permit it released: true) from a lease that ran out before it (false, as
   * without a fault). Here the lease ran out first: the first run finds it ended, its reply is lost
   * with the connection, and the retry finds the id unknown.
   */
  @Test
  void aReleaseRunAgainAfterItsReplyWasLostReportsALeaseThatRanOutBeforeIt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(proxy.uri()));
      LeasedSemaphore semaphore = warden.leasedSemaphore("ran-out");
      semaphore.trySetPermits(2);
      semaphore.release(semaphore.tryAcquire()); // loads the scripts
      String permit = semaphore.tryAcquire(0, 200, TimeUnit.MILLISECONDS);
      assertThat(permit).isNotNull();
      // the lease ends: the permit counts as free again
      await().atMost(Duration.ofSeconds(5)).until(() -> semaphore.availablePermits() == 2);
      redis.redis().configResetstat();

      assertThat(releaseWhoseFirstReplyIsLost(redis, proxy, semaphore, permit))
          .as("the lease had run out before the release")
          .isFalse();
    }
  }

  @Test
  void aReleaseRunAgainAfterItsReplyWasLostCountsItsOwnFirstRunAsDone(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(proxy.uri()));
      LeasedSemaphore semaphore = warden.leasedSemaphore("released");
      semaphore.trySetPermits(1);
      semaphore.release(semaphore.tryAcquire()); // loads the scripts
      String permit = semaphore.tryAcquire(0, 60, TimeUnit.SECONDS);
      redis.redis().configResetstat();

      assertThat(releaseWhoseFirstReplyIsLost(redis, proxy, semaphore, permit))
          .as("the first run released the live permit")
          .isTrue();
      assertThat(semaphore.availablePermits()).isEqualTo(1);
      assertThat(semaphore.tryRelease(permit)).as("released already: a new release").isFalse();
    }
  }

  /**
   * Releases the permit on a thread of its own while the replies are held back; once the release
   * ran, cuts the connection (its reply is lost) and heals: the release is sent again.
   */
  private static boolean releaseWhoseFirstReplyIsLost(
      RedisServer redis, FaultProxy proxy, LeasedSemaphore semaphore, String permit)
      throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<Boolean> released = thread.submit(() -> semaphore.tryRelease(permit));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.commandCalls().getOrDefault("evalsha", 0L) >= 1);
      proxy.cut();
      proxy.heal();
      return released.get(10, TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
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
