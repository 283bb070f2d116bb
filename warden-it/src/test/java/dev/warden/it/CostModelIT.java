package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The terms of "How cost grows" (docs/performance.md) that are about Redis's memory and an idle
 * client, counted on a real server ({@code INFO memory}, {@code DBSIZE}, {@code INFO
 * commandstats}); each test prints its figure. What waiting costs is {@link WaitCostIT}'s, what an
 * acquisition costs {@link CommandCostIT}'s, what renewals cost the benchmark's W5.
 */
@ExtendWith(WardenExtension.class)
class CostModelIT {
  private static final int LOCKS = 1_000;
  private static final Duration LONG = Duration.ofMinutes(2);

  @Test
  void aHeldLockTakesTwoKeysAndUnder400BytesOfRedisMemory(RedisServer redis, Warden warden) {
    warden.lock("warm-up").lock();
    warden.lock("warm-up").unlock();
    redis.flushAll();
    long before = usedMemory(redis);
    List<DistributedLock> held = new ArrayList<>();
    for (int i = 0; i < LOCKS; i++) {
      DistributedLock lock = warden.lock("held-" + i);
      lock.lock();
      held.add(lock);
    }
    long perLock = (usedMemory(redis) - before) / LOCKS;
    System.out.printf("CostModelIT: a held lock takes %d bytes of Redis memory%n", perLock);
    assertThat(redis.redis().dbsize()).as("the lock's hash and its fence").isEqualTo(2L * LOCKS);
    assertThat(perLock).as("bytes per held lock").isBetween(100L, 400L);

    held.forEach(DistributedLock::unlock);
    assertThat(redis.redis().dbsize())
        .as("after the releases: the fences (and short-lived release markers, if any)")
        .isBetween((long) LOCKS, 2L * LOCKS);
    assertThat(redis.redis().keys("*:lock")).as("no lock hash left").isEmpty();
  }

  @Test
  void waitersOfAReentrantLockTakeNoRedisMemoryAndFairOnesUnder400BytesEach(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Warden holding = wardens.create();
    Warden waiting = wardens.create();
    LockHandle plain = holding.lock("plain").acquireAsync(Duration.ZERO, LONG).get();
    LockHandle fair = holding.fairLock("fair").acquireAsync(Duration.ZERO, LONG).get();
    long keys = redis.redis().dbsize();
    long before = usedMemory(redis);

    List<CompletableFuture<LockHandle>> plainWaiters = wait(waiting.lock("plain"), LOCKS);
    await().atMost(Duration.ofSeconds(30)).until(() -> waiting.stats().parkedWaiters() == LOCKS);
    long plainPerWaiter = (usedMemory(redis) - before) / LOCKS;
    assertThat(redis.redis().dbsize()).as("no key for reentrant waiters").isEqualTo(keys);

    before = usedMemory(redis);
    List<CompletableFuture<LockHandle>> fairWaiters = wait(waiting.fairLock("fair"), LOCKS);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> waiting.stats().parkedWaiters() == 2 * LOCKS);
    long fairPerWaiter = (usedMemory(redis) - before) / LOCKS;
    System.out.printf(
        "CostModelIT: a parked waiter takes %d bytes of Redis memory (reentrant lock), %d (fair"
            + " lock)%n",
        plainPerWaiter, fairPerWaiter);
    assertThat(plainPerWaiter).as("bytes per reentrant waiter (noise only)").isLessThan(64L);
    assertThat(fairPerWaiter).as("bytes per fair waiter (its queue entry)").isBetween(50L, 400L);

    plain.close();
    fair.close();
    for (CompletableFuture<LockHandle> waiter : plainWaiters) {
      waiter.get(60, TimeUnit.SECONDS).close();
    }
    for (CompletableFuture<LockHandle> waiter : fairWaiters) {
      waiter.get(60, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void anIdleClientSendsNothing(RedisServer redis, Warden warden) {
    DistributedLock lock = warden.lock("once");
    lock.lock();
    lock.unlock();
    await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().subscriptions() == 0);
    Map<String, Long> before = redis.commandCalls();
    await()
        .pollDelay(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(4))
        .until(() -> warden.stats().holds() == 0);
    Map<String, Long> after = new HashMap<>(redis.commandCalls());
    after.remove("info"); // the counting itself
    after.replaceAll((command, calls) -> calls - before.getOrDefault(command, 0L));
    after.values().removeIf(calls -> calls == 0);
    assertThat(after).as("commands of an idle client in 3 s").isEmpty();
  }

  private static List<CompletableFuture<LockHandle>> wait(DistributedLock lock, int count) {
    List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      waiters.add(lock.acquireAsync(Duration.ofMinutes(1), LONG));
    }
    return waiters;
  }

  private static long usedMemory(RedisServer redis) {
    return redis
        .redis()
        .info("memory")
        .lines()
        .filter(line -> line.startsWith("used_memory:"))
        .map(line -> Long.parseLong(line.substring("used_memory:".length()).trim()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("INFO memory has no used_memory"));
  }
}
