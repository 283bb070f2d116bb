package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the lock and the synchronizers cost Redis, from {@code INFO commandstats}: one script call
 * (one round trip) per uncontended acquisition and per release, and no PUBLISH when nobody waits.
 */
@ExtendWith(WardenExtension.class)
class CommandCostIT {
  private static final int PAIRS = 100;

  @Test
  void anUncontendedLockAndUnlockCostOneScriptCallEachAndNeverPublish(
      RedisServer redis, Warden warden) {
    DistributedLock lock = warden.lock("cost");
    lock.lock(); // first use loads the script (EVALSHA answered NOSCRIPT, then EVAL)
    lock.unlock();
    redis.redis().configResetstat();

    for (int i = 0; i < PAIRS; i++) {
      lock.lock();
      lock.unlock();
    }

    Map<String, Long> calls = redis.commandCalls();
    assertThat(calls.get("evalsha")).isEqualTo(2L * PAIRS);
    assertThat(calls.getOrDefault("eval", 0L)).isZero();
    assertThat(calls.getOrDefault("publish", 0L)).isZero();
    long total =
        calls.entrySet().stream()
            .filter(call -> !call.getKey().startsWith("config")) // the reset itself
            .mapToLong(Map.Entry::getValue)
            .sum();
    // per pair: acquire = EVALSHA + EXISTS (a free lock has no hash: its fields are not read) +
    // HMGET, TIME, HSET (the fence: prelude.lua's mint_token) + HSET + PEXPIRE; release = EVALSHA +
    // HMGET + DEL + SET (the release's marker, for its own replay: prelude.lua's mark_released)
    assertThat(total).as("every command: %s", calls).isEqualTo(11L * PAIRS);
    assertThat(calls.get("exists")).isEqualTo((long) PAIRS);
    assertThat(calls.get("hmget")).isEqualTo(2L * PAIRS);
  }

  @Test
  void aNestedLockReadsTheHoldOnce(RedisServer redis, Warden warden) {
    DistributedLock lock = warden.lock("cost-nested");
    lock.lock();
    lock.lock(); // loads the scripts' paths
    lock.unlock();
    redis.redis().configResetstat();

    for (int i = 0; i < PAIRS; i++) {
      lock.lock();
      lock.unlock();
    }

    Map<String, Long> calls = redis.commandCalls();
    lock.unlock();
    assertThat(calls.get("evalsha")).isEqualTo(2L * PAIRS);
    // a re-entry = EVALSHA + EXISTS + HMGET (which reads '#a' and '#t' too) + HSET + PTTL (+
    // PEXPIRE
    // unless less than a millisecond passed since the lease was set); the release that leaves one
    // hold = EVALSHA + HMGET + HSET + HDEL
    assertThat(calls.getOrDefault("hget", 0L)).isZero();
    assertThat(calls.get("hmget")).isEqualTo(2L * PAIRS);
    assertThat(calls.get("exists")).isEqualTo((long) PAIRS);
  }

  @Test
  void aReleaseWithAWaiterPublishesOnce(RedisServer redis, WardenFactory wardens) throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = wardens.create().lock("cost-waited");
    DistributedLock waiter = waiterWarden.lock("cost-waited");
    holder.lock();
    CompletableFuture<Void> waited =
        CompletableFuture.runAsync(
            () -> {
              waiter.lock();
              waiter.unlock();
            });
    org.awaitility.Awaitility.await().until(() -> waiterWarden.stats().subscriptions() == 1);
    redis.redis().configResetstat();
    holder.unlock();
    waited.get(10, TimeUnit.SECONDS);
    assertThat(redis.commandCalls().get("publish")).isEqualTo(1L);
  }

  /**
   * A hand-off to another client's waiter, in commands (W7's contended hand-off): the waiter's
   * first attempt is the only one that runs EXISTS (an attempt after a refusal reads the hash at
   * once) and the only one that reads the holder's lease (the attempt after subscribing is refused
   * by the same holder, whose lease it knows). Without lock-acquire.lua's hints: 3 EXISTS and 2
   * PTTL, 31 commands in all.
   */
  @Test
  void aHandOffToAnotherClientsWaiterRunsExistsAndPttlOnlyOnItsFirstAttempt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Duration lease = Duration.ofMinutes(2); // fixed: no lease keeper in the counts
    // no re-check of its own while the counts are taken: only its attempts, and the release's
    Warden waiting = wardens.create(builder -> builder.recheckInterval(Duration.ofMinutes(1)));
    DistributedLock holder = wardens.create().lock("cost-handed");
    holder.acquireAsync(Duration.ZERO, lease).get().close(); // loads the scripts
    LockHandle held = holder.acquireAsync(Duration.ZERO, lease).get();
    redis.redis().configResetstat();

    CompletableFuture<LockHandle> waited =
        waiting.lock("cost-handed").acquireAsync(Duration.ofSeconds(30), lease);
    org.awaitility.Awaitility.await().until(() -> waiting.stats().parkedWaiters() == 1);
    Map<String, Long> parked = redis.commandCalls();
    held.close();
    waited.get(10, TimeUnit.SECONDS).close();
    Map<String, Long> calls = redis.commandCalls();

    System.out.printf("CommandCostIT: parked %s, then %s%n", parked, calls);
    assertThat(parked.get("evalsha")).as("refused, then refused after subscribing").isEqualTo(2);
    assertThat(parked.get("exists")).isEqualTo(1);
    assertThat(parked.get("pttl")).isEqualTo(1);
    assertThat(parked.get("hmget")).isEqualTo(2);
    // the release nominates the waiter's client (an explicit lease: no direct grant, but the
    // release looks for the client's registration: one HGET); its retry takes the lock: no
    // EXISTS, no PTTL
    assertThat(calls.get("exists")).isEqualTo(1);
    assertThat(calls.get("pttl")).isEqualTo(1);
    assertThat(calls.get("hget")).isEqualTo(1);
    assertThat(scriptAndDataCalls(calls)).isEqualTo(29);
  }

  @Test
  void anUncontendedSemaphoreAcquireAndReleaseCostOneScriptCallEachAndNeverPublish(
      RedisServer redis, Warden warden) throws Exception {
    DistributedSemaphore semaphore = warden.semaphore("cost");
    semaphore.trySetPermits(1); // first use loads the script
    redis.redis().configResetstat();

    for (int i = 0; i < PAIRS; i++) {
      semaphore.acquire();
      semaphore.release();
    }

    Map<String, Long> calls = redis.commandCalls();
    assertThat(calls.get("evalsha")).isEqualTo(2L * PAIRS);
    assertThat(calls.getOrDefault("publish", 0L)).isZero();
    // acquire = EVALSHA + GET marker + GET + EXISTS queue + DECRBY + SET marker;
    // release = EVALSHA + GET marker + GET + INCRBY + SET marker + EXISTS queue
    assertThat(scriptAndDataCalls(calls)).isEqualTo(12L * PAIRS);
  }

  @Test
  void anUncontendedLeasedAcquireAndReleaseCostOneScriptCallEachAndNeverPublish(
      RedisServer redis, Warden warden) throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("cost");
    semaphore.trySetPermits(1);
    semaphore.release(semaphore.acquire(10, TimeUnit.SECONDS)); // loads the scripts
    redis.redis().configResetstat();

    for (int i = 0; i < PAIRS; i++) {
      semaphore.release(semaphore.acquire(10, TimeUnit.SECONDS));
    }

    Map<String, Long> calls = redis.commandCalls();
    assertThat(calls.get("evalsha")).isEqualTo(2L * PAIRS);
    assertThat(calls.getOrDefault("publish", 0L)).isZero();
  }

  @Test
  void aCountDownCostsOneScriptCallAndOnlyTheLastPublishesWhenAwaited(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Warden awaiting = wardens.create();
    DistributedCountDownLatch latch = wardens.create().countDownLatch("cost");
    latch.trySetCount(PAIRS);
    CompletableFuture<Void> awaiter =
        CompletableFuture.runAsync(
            () -> {
              try {
                awaiting.countDownLatch("cost").await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    org.awaitility.Awaitility.await().until(() -> awaiting.stats().subscriptions() == 1);
    redis.redis().configResetstat();
    for (int i = 0; i < PAIRS - 1; i++) {
      latch.countDown();
    }
    assertThat(redis.commandCalls().getOrDefault("publish", 0L)).isZero();
    latch.countDown();
    awaiter.get(10, TimeUnit.SECONDS);
    assertThat(redis.commandCalls().get("publish")).isEqualTo(1L);
  }

  /** The calls that are not the statistics' own (CONFIG RESETSTAT, INFO). */
  private static long scriptAndDataCalls(Map<String, Long> calls) {
    return calls.entrySet().stream()
        .filter(call -> !call.getKey().startsWith("config") && !call.getKey().equals("info"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }
}
