package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.KillArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The lock under faults: restarts, killed connections, a dead or frozen Redis, a killed holder. */
@ExtendWith(WardenExtension.class)
class FaultsIT {

  @Test
  @WardenOptions(watchdogTimeoutMillis = 1_500)
  void aRestartWhileHeldTellsTheHolderAndLetsAWaiterIn(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = wardens.create().lock("restart");
    DistributedLock waiter = waiterWarden.lock("restart");
    LockHandle held = holder.acquire(Duration.ZERO);
    CompletableFuture<Long> waited =
        CompletableFuture.supplyAsync(() -> Waiters.tokenAfterWaiting(waiter));
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);

    redis.restart(); // no persistence: the lock is gone

    held.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(waited.get(20, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    assertThatThrownBy(held::close).isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void waitersStillAcquirePromptlyAfterThePubSubConnectionIsKilled(
      RedisServer redis, WardenFactory wardens) throws Exception {
    // with a one-minute re-check, only the wake-up after resubscription can get them in quickly
    Warden waiterWarden = wardens.create();
    DistributedLock holder = wardens.create().lock("pubsub-killed");
    holder.lock();
    List<CompletableFuture<Long>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DistributedLock waiter = waiterWarden.lock("pubsub-killed");
      waiters.add(CompletableFuture.supplyAsync(() -> Waiters.tokenAfterWaiting(waiter)));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);

    long killed = redis.redis().clientKill(KillArgs.Builder.typePubsub());
    assertThat(killed).isGreaterThanOrEqualTo(1);
    holder.unlock(); // its message is published while the waiters' connection is down

    long start = System.nanoTime();
    for (CompletableFuture<Long> waiter : waiters) {
      waiter.get(20, TimeUnit.SECONDS);
    }
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000L);
    // the subscription outlives its last waiter by a second, then ends
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                waiterWarden.stats().subscriptions() == 0
                    && redis.redis().pubsubChannels("warden:*").isEmpty());
  }

  @Test
  @WardenOptions(commandTimeoutMillis = 1_000)
  void withRedisDownCallsFailWithinTheirBoundsInsteadOfHanging(
      RedisServer redis, WardenFactory wardens) {
    Warden warden = wardens.create();
    DistributedLock lock = warden.lock("down");
    lock.lock();
    redis.kill();

    long start = System.nanoTime();
    assertThatThrownBy(() -> lock.unlock())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("'down'");
    assertThat(elapsedMillis(start)).isLessThan(3_000L);

    DistributedLock other = warden.lock("down-too");
    start = System.nanoTime();
    assertThatThrownBy(() -> other.tryLock(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("'down-too'");
    assertThat(elapsedMillis(start)).isLessThan(300L + 2_000L);

    start = System.nanoTime();
    assertThatThrownBy(other::lock).isInstanceOf(WardenException.class);
    assertThat(elapsedMillis(start)).isLessThan(1_000L + 3_000L);
  }

  @Test
  void withRedisFrozenATimedTryLockReturnsWithinItsWaitPlusAMargin(
      RedisServer redis, WardenFactory wardens) {
    DistributedLock lock = wardens.create().lock("frozen");
    lock.tryLock(); // warm: the script is cached and the connection is up
    lock.unlock();
    redis.pause(Duration.ofSeconds(4));
    long start = System.nanoTime();
    assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("'frozen'");
    assertThat(elapsedMillis(start)).isBetween(250L, 300L + 1_500L);
    redis.resume();
  }

  @Test
  void aHolderProcessKilledWithSigkillLosesItsLockAfterTheLease(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock lock = wardens.create().lock("crashed-holder");
    long holderToken;
    try (JvmProcess holder =
        JvmProcess.start(HolderMain.class, redis.uri(), "crashed-holder", "1000")) {
      String line = holder.awaitLine("LOCKED ", Duration.ofSeconds(30));
      holderToken = Long.parseLong(line.substring("LOCKED ".length()));
      assertThat(lock.tryLock()).isFalse();
      holder.kill();
    }
    long start = System.nanoTime();
    assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(elapsedMillis(start)).isLessThan(3_000L); // the 1 s lease, plus slack
      assertThat(lock.fencingToken()).isGreaterThan(holderToken);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void scriptsAreReloadedAfterScriptFlush(RedisServer redis, Warden warden) {
    DistributedLock lock = warden.lock("flushed-scripts");
    lock.lock();
    redis.redis().scriptFlush();
    lock.unlock();
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 1_500) // the idle lease keeper stops within 500 ms
  void nothingLeaksAfterWaitersFinish(RedisServer redis, Warden warden, WardenFactory wardens)
      throws Exception {
    DistributedLock holder = wardens.create().lock("leaks");
    holder.lock();
    List<CompletableFuture<Long>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      DistributedLock waiter = warden.lock("leaks");
      waiters.add(CompletableFuture.supplyAsync(() -> Waiters.tokenAfterWaiting(waiter)));
    }
    CompletableFuture<LockHandle> timedOut =
        warden.lock("leaks").acquireAsync(Duration.ofMillis(100));
    assertThatThrownBy(() -> timedOut.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(dev.warden.LockTimeoutException.class);
    holder.unlock();
    for (CompletableFuture<Long> waiter : waiters) {
      waiter.get(20, TimeUnit.SECONDS);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                warden.stats().subscriptions() == 0
                    && redis.redis().pubsubChannels("warden:*").isEmpty());
    assertThat(warden.stats().acquisitions()).isZero();
    assertThat(warden.stats().holds()).isZero();
    assertThat(warden.stats().renewedHolds()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> !warden.stats().leaseKeeperRunning());
  }

  private static long elapsedMillis(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
