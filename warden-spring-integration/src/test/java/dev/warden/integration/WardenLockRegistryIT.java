package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The scenarios of Spring Integration's {@code RedisLockRegistryTests} that apply to a registry on
 * Warden, plus mutual exclusion across two registries on two Warden instances, against a real
 * redis-server.
 */
@ExtendWith(WardenExtension.class)
class WardenLockRegistryIT {
  private static final Duration LONG = Duration.ofSeconds(10);

  private static String keyOf(String lockName) {
    return "warden:{" + lockName + "}:lock";
  }

  /** Runs {@code task} on a thread of its own and returns what it returned (or threw). */
  private static <T> T onAnotherThread(java.util.concurrent.Callable<T> task) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(task.call());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            });
    thread.start();
    try {
      return result.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Test
  void lockAndUnlockTenTimesHoldsTheWardenLockAndExpireUnusedEmptiesTheCache(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    dev.warden.DistributedLock underlying = warden.lock("test:foo");
    for (int i = 0; i < 10; i++) {
      Lock lock = registry.obtain("foo");
      lock.lock();
      try {
        assertThat(underlying.isLocked()).isTrue();
        assertThat(registry.cachedLocks()).isEqualTo(1);
      } finally {
        lock.unlock();
      }
      assertThat(underlying.isLocked()).isFalse();
    }
    Lock before = registry.obtain("foo");
    assertThat(registry.obtain("foo")).isSameAs(before);

    registry.expireUnusedOlderThan(0);

    assertThat(registry.cachedLocks()).isZero();
    assertThat(registry.obtain("foo")).isNotSameAs(before);
  }

  @Test
  void lockWithoutTtlIsRenewedByTheWatchdog(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden warden = wardens.create(b -> b.watchdogTimeout(Duration.ofMillis(600)));
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    WardenLockRegistry other = new WardenLockRegistry(wardens.create(), "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    try {
      // the key lives on through more than two watchdog timeouts: the lease keeper renews it
      await()
          .during(Duration.ofMillis(1500))
          .atMost(LONG)
          .until(() -> redis.redis().exists(keyOf("test:foo")) == 1);
      assertThat(onAnotherThread(() -> other.obtain("foo").tryLock())).isFalse();
      assertThat(lock.tryLock()).isTrue(); // still this thread's in Redis
      lock.unlock();
    } finally {
      lock.unlock();
    }
    assertThat(redis.redis().exists(keyOf("test:foo"))).isZero();
  }

  @Test
  void lockWithACustomTtlTakesAFixedLeaseOfThatTtl(RedisServer redis, Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    for (int i = 0; i < 3; i++) {
      DistributedLock lock = registry.obtain("foo");
      lock.lock(Duration.ofSeconds(2));
      try {
        assertThat(redis.redis().pttl(keyOf("test:foo"))).isBetween(1L, 2000L);
      } finally {
        lock.unlock();
      }
    }
    assertThat(redis.redis().exists(keyOf("test:foo"))).isZero();
  }

  @Test
  void tryLockWithACustomTtlTakesAFixedLeaseOfThatTtl(RedisServer redis, Warden warden)
      throws InterruptedException {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    for (int i = 0; i < 3; i++) {
      DistributedLock lock = registry.obtain("foo");
      assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofSeconds(2))).isTrue();
      try {
        assertThat(redis.redis().pttl(keyOf("test:foo"))).isBetween(1L, 2000L);
      } finally {
        lock.unlock();
      }
    }
    assertThat(redis.redis().exists(keyOf("test:foo"))).isZero();
  }

  @Test
  void unlockAfterTheLeaseExpiredTellsTheUserWithLeaseExpiredException(
      RedisServer redis, Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    DistributedLock lock = registry.obtain("foo");
    lock.lock(Duration.ofMillis(200));
    await().atMost(LONG).until(() -> redis.redis().exists(keyOf("test:foo")) == 0);

    assertThatThrownBy(lock::unlock)
        .isInstanceOf(LeaseExpiredException.class)
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("test:foo");
    // the hold is gone: a second unlock is an unlock by a non-owner
    assertThatThrownBy(lock::unlock)
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("is not held by thread");
  }

  @Test
  void lockInterruptiblyTakesTheLockAndAnInterruptStopsItsWait(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    for (int i = 0; i < 10; i++) {
      Lock lock = registry.obtain("foo");
      lock.lockInterruptibly();
      lock.unlock();
    }
    Lock lock = registry.obtain("foo");
    lock.lockInterruptibly();
    try {
      CountDownLatch waiting = new CountDownLatch(1);
      Thread waiter =
          new Thread(
              () -> {
                waiting.countDown();
                try {
                  lock.lockInterruptibly();
                  lock.unlock();
                } catch (InterruptedException expected) {
                  Thread.currentThread().interrupt();
                }
              });
      CompletableFuture<Void> failure = new CompletableFuture<>();
      waiter.setUncaughtExceptionHandler((t, e) -> failure.completeExceptionally(e));
      waiter.start();
      waiting.await();
      waiter.interrupt();
      waiter.join(10_000);
      assertThat(waiter.isAlive()).isFalse();
      assertThat(failure).isNotCompletedExceptionally();
      assertThat(lock.tryLock()).isTrue(); // still this thread's: reentrant
      lock.unlock();
    } finally {
      lock.unlock();
    }
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }

  @Test
  void lockIsNotInterruptibleAndRestoresTheInterruptFlag(WardenFactory wardens) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry other = new WardenLockRegistry(wardens.create(), "test:");
    Lock held = other.obtain("foo");
    held.lock();
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<Boolean> flagAfterLock = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              Lock lock = registry.obtain("foo");
              waiting.countDown();
              lock.lock();
              flagAfterLock.complete(Thread.currentThread().isInterrupted());
              lock.unlock();
            });
    waiter.start();
    waiting.await();
    waiter.interrupt();
    assertThat(flagAfterLock).isNotDone();
    held.unlock();

    assertThat(flagAfterLock.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aReentrantLockNeedsAsManyUnlocksAsAcquisitions(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    DistributedLock lock = registry.obtain("foo");
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    lock.lockInterruptibly();
    assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
    lock.lock(Duration.ofSeconds(5)); // reentrant: the hold keeps its lease

    for (int i = 0; i < 4; i++) {
      lock.unlock();
      assertThat(warden.lock("test:foo").isLocked()).isTrue();
    }
    lock.unlock();

    assertThat(warden.lock("test:foo").isLocked()).isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void twoLocksOfOneRegistryAreHeldIndependently(Warden warden, WardenFactory wardens)
      throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    WardenLockRegistry other = new WardenLockRegistry(wardens.create(), "test:");
    Lock foo = registry.obtain("foo");
    Lock bar = registry.obtain("bar");
    foo.lock();
    bar.lock();
    assertThat(onAnotherThread(() -> other.obtain("foo").tryLock())).isFalse();
    assertThat(onAnotherThread(() -> other.obtain("bar").tryLock())).isFalse();
    foo.unlock();
    assertThat(warden.lock("test:bar").isLocked()).isTrue();
    bar.unlock();
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
    assertThat(warden.lock("test:bar").isLocked()).isFalse();
  }

  @Test
  void aSecondThreadFailsToGetTheLockAndCannotUnlockIt(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    try {
      assertThat(onAnotherThread(() -> registry.obtain("foo").tryLock())).isFalse();
      assertThatThrownBy(
              () ->
                  onAnotherThread(
                      () -> {
                        lock.unlock();
                        return null;
                      }))
          .isInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("test:foo");
      assertThat(lock.tryLock()).isTrue(); // still this thread's
      lock.unlock();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void aThreadWaitingInLockGetsItOnceTheHolderUnlocks(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    CountDownLatch waiting = new CountDownLatch(1);
    AtomicBoolean locked = new AtomicBoolean();
    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              Lock mine = registry.obtain("foo");
              waiting.countDown();
              mine.lock();
              locked.set(true);
              mine.unlock();
            });
    waiting.await();
    assertThat(locked).isFalse();
    lock.unlock();

    done.get(10, TimeUnit.SECONDS);
    assertThat(locked).isTrue();
  }

  @Test
  void registriesOnTwoWardensExcludeEachOtherUntilTheLeaseExpires(
      RedisServer redis, WardenFactory wardens) throws Exception {
    WardenLockRegistry first = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry second = new WardenLockRegistry(wardens.create(), "test:");
    DistributedLock firstLock = first.obtain("foo");
    DistributedLock secondLock = second.obtain("foo");
    assertThat(firstLock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
    assertThat(secondLock.tryLock()).isFalse();
    assertThat(secondLock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();

    await().atMost(LONG).until(() -> redis.redis().exists(keyOf("test:foo")) == 0);

    assertThat(secondLock.tryLock()).isTrue();
    // first's reentrant tryLock asks Redis: its hold is gone and another owner has the lock
    assertThat(firstLock.tryLock()).isFalse();
    assertThatThrownBy(firstLock::unlock).isInstanceOf(LeaseExpiredException.class);
    secondLock.unlock();
  }

  @Test
  void aReentrantTryLockReturnsFalseOnceTheHoldIsLostAndTheNextOneStartsAfresh(Warden warden)
      throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    assertThat(warden.lock("test:foo").forceUnlock()).isTrue();

    assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(lock.tryLock()).isTrue(); // a new hold, counted from one
    assertThat(registry.obtain("foo").tryLock()).isTrue();
    lock.unlock();
    lock.unlock();

    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }

  @Test
  void aReentrantLockThrowsLeaseExpiredOnceTheHoldIsLost(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    assertThat(warden.lock("test:foo").forceUnlock()).isTrue();

    assertThatThrownBy(lock::lock).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
    assertThat(warden.lock("test:foo").isLocked()).isFalse();

    lock.lockInterruptibly();
    assertThat(warden.lock("test:foo").forceUnlock()).isTrue();
    assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(LeaseExpiredException.class);
    lock.lockInterruptibly(); // the loss was reported: a new hold
    lock.unlock();
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }

  @Test
  void expireUnusedKeepsHeldLocksAndLocksUsedWithinTheAge(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock held = registry.obtain("held");
    Lock recent = registry.obtain("recent");
    held.lock();
    try {
      registry.expireUnusedOlderThan(60_000);
      assertThat(registry.cachedLocks()).isEqualTo(2);

      registry.expireUnusedOlderThan(0);
      assertThat(registry.cachedLocks()).isEqualTo(1);
      assertThat(registry.obtain("held")).isSameAs(held);
      assertThat(registry.obtain("recent")).isNotSameAs(recent);
    } finally {
      held.unlock();
    }
  }

  @Test
  void aFullCacheDropsTheLeastRecentlyUsedLockNoThreadHolds(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    registry.setCacheCapacity(2);
    Lock held = registry.obtain("held");
    held.lock();
    try {
      Lock a = registry.obtain("a");
      assertThat(registry.obtain("held")).isSameAs(held); // now a is the least recently used
      registry.obtain("b");
      assertThat(registry.cachedLocks()).isEqualTo(2);
      assertThat(registry.obtain("a")).isNotSameAs(a);

      registry.setCacheCapacity(1); // every unheld lock goes; the held one stays
      assertThat(registry.cachedLocks()).isEqualTo(1);
      assertThat(registry.obtain("held")).isSameAs(held);
    } finally {
      held.unlock();
    }
    assertThatThrownBy(() -> registry.setCacheCapacity(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cacheCapacity must be positive: 0");
  }

  @Test
  void aLockDroppedFromTheCacheWhileHeldIsReleasedThroughItsSuccessor(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    registry.setCacheCapacity(1);
    Lock first = registry.obtain("foo");
    registry.obtain("bar"); // drops foo before it is locked
    first.lock();
    Lock successor = registry.obtain("foo");
    assertThat(successor).isNotSameAs(first);

    successor.unlock(); // the holds live in the registry, not in the lock object

    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }

  @Test
  void renewLockOfALockTheThreadDoesNotHoldThrowsIllegalStateException(Warden warden)
      throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    registry.obtain("foo");
    assertThatThrownBy(() -> registry.renewLock("foo"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("test:foo");
    Lock lock = registry.obtain("foo");
    lock.lock();
    try {
      assertThatThrownBy(
              () ->
                  onAnotherThread(
                      () -> {
                        registry.renewLock("foo", Duration.ofSeconds(5));
                        return null;
                      }))
          .isInstanceOf(IllegalStateException.class);
      registry.renewLock("foo"); // the holder may
    } finally {
      lock.unlock();
    }
  }

  @Test
  void renewLockWithACustomTtlSetsAFixedLeaseFromNow(RedisServer redis, WardenFactory wardens)
      throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry otherProcess = new WardenLockRegistry(wardens.create(), "test:");
    DistributedLock lock = registry.obtain("foo");
    assertThat(lock.tryLock(Duration.ofMillis(100), Duration.ofMillis(300))).isTrue();
    try {
      registry.renewLock("foo", Duration.ofSeconds(20));

      assertThat(redis.redis().pttl(keyOf("test:foo"))).isBetween(10_000L, 20_000L);
      assertThat(onAnotherThread(() -> otherProcess.obtain("foo").tryLock(1, TimeUnit.SECONDS)))
          .isFalse(); // outlived the 300 ms it was taken with
    } finally {
      lock.unlock();
    }
  }

  @Test
  void renewLockWithoutTtlReLeasesAFixedLeaseAndConfirmsAWatchdogOne(
      RedisServer redis, Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    DistributedLock fixed = registry.obtain("fixed");
    fixed.lock(Duration.ofSeconds(20));
    redis.redis().pexpire(keyOf("test:fixed"), 500); // as if most of the lease had passed
    registry.renewLock("fixed");
    assertThat(redis.redis().pttl(keyOf("test:fixed"))).isBetween(10_000L, 20_000L);
    fixed.unlock();

    Lock renewed = registry.obtain("renewed");
    renewed.lock();
    registry.renewLock("renewed");
    assertThat(warden.lock("test:renewed").isLocked()).isTrue();
    renewed.unlock();
  }

  @Test
  void renewLockAfterTheLeaseWasLostThrowsAndLeavesTheNewOwnerAlone(
      RedisServer redis, WardenFactory wardens) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry otherProcess = new WardenLockRegistry(wardens.create(), "test:");
    DistributedLock lock = registry.obtain("foo");
    lock.lock(Duration.ofMillis(200));
    await().atMost(LONG).until(() -> redis.redis().exists(keyOf("test:foo")) == 0);
    DistributedLock theirs = otherProcess.obtain("foo");
    assertThat(theirs.tryLock(Duration.ZERO, Duration.ofSeconds(5))).isTrue();

    assertThatThrownBy(() -> registry.renewLock("foo", Duration.ofMinutes(10)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was lost");
    assertThat(redis.redis().pttl(keyOf("test:foo"))).isBetween(1L, 5000L);
    assertThatThrownBy(() -> registry.renewLock("foo")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
    assertThat(otherProcess.obtain("foo").tryLock()).isTrue(); // still theirs, reentrantly
    theirs.unlock();
    theirs.unlock();
  }

  @Test
  void renewLockWithoutTtlThrowsOnceAWatchdogHoldWasForceUnlocked(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    warden.lock("test:foo").forceUnlock();

    assertThatThrownBy(() -> registry.renewLock("foo")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  void unlockAfterExpiryDoesNotDeleteAnotherClientsLock(RedisServer redis, WardenFactory wardens)
      throws Exception {
    WardenLockRegistry first = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry second = new WardenLockRegistry(wardens.create(), "test:");
    DistributedLock lock1 = first.obtain("testLock");
    lock1.lock(Duration.ofMillis(200));
    await().atMost(LONG).until(() -> redis.redis().exists(keyOf("test:testLock")) == 0);
    Lock lock2 = second.obtain("testLock");
    assertThat(lock2.tryLock()).isTrue();
    try {
      assertThatThrownBy(lock1::unlock).isInstanceOf(LeaseExpiredException.class);
      assertThat(redis.redis().exists(keyOf("test:testLock"))).isEqualTo(1);
      assertThat(onAnotherThread(() -> first.obtain("testLock").tryLock())).isFalse();
    } finally {
      lock2.unlock();
    }
    assertThat(redis.redis().exists(keyOf("test:testLock"))).isZero();
  }

  @Test
  void anUnlockThatCannotReachRedisKeepsTheHoldAndMayBeRetried(
      RedisServer redis, WardenFactory wardens) {
    Warden warden = wardens.create(b -> b.commandTimeout(Duration.ofMillis(300)));
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    redis.pause(Duration.ofSeconds(20));
    try {
      assertThatThrownBy(lock::unlock).isInstanceOf(WardenException.class);
    } finally {
      redis.resume();
    }
    assertThat(registry.fencingToken("foo")).isPositive(); // still held
    lock.unlock();
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }

  @Test
  void concurrentObtainOfOneKeyGivesEveryThreadTheSameLock(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Set<Lock> seen =
        Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    StartGate.run(8, 200, contender -> seen.add(registry.obtain("foo")));
    assertThat(seen).hasSize(1);
  }

  @Test
  void concurrentObtainOfManyKeysKeepsTheCacheWithinItsCapacity(Warden warden) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    registry.setCacheCapacity(10);
    StartGate.run(8, 200, contender -> registry.obtain("key-" + contender + "-" + Math.random()));
    assertThat(registry.cachedLocks()).isEqualTo(10);
  }

  @Test
  void executeLockedRunsTheTaskUnderTheLockAndTimesOutWhenItIsHeldElsewhere(
      Warden warden, WardenFactory wardens) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    WardenLockRegistry other = new WardenLockRegistry(wardens.create(), "test:");
    String result =
        registry.executeLocked(
            "job", () -> warden.lock("test:job").isLocked() ? "ran locked" : "ran unlocked");
    assertThat(result).isEqualTo("ran locked");
    assertThat(warden.lock("test:job").isLocked()).isFalse();

    Lock held = other.obtain("job");
    held.lock();
    try {
      AtomicBoolean ran = new AtomicBoolean();
      assertThatThrownBy(
              () ->
                  onAnotherThread(
                      () -> {
                        registry.executeLocked("job", Duration.ofMillis(200), () -> ran.set(true));
                        return null;
                      }))
          .isInstanceOf(TimeoutException.class);
      assertThat(ran).isFalse();
    } finally {
      held.unlock();
    }
  }

  @Test
  void twoRegistriesOnTwoWardensKeepAnExactCounterAndRisingFencingTokens(WardenFactory wardens)
      throws Exception {
    WardenLockRegistry first = new WardenLockRegistry(wardens.create(), "test:");
    WardenLockRegistry second = new WardenLockRegistry(wardens.create(), "test:");
    CriticalSection section = new CriticalSection();
    StartGate.run(
        4,
        50,
        contender -> {
          WardenLockRegistry registry = contender % 2 == 0 ? first : second;
          Lock lock = registry.obtain("counter");
          lock.lock();
          try {
            section.enterWithToken(registry.fencingToken("counter"));
          } finally {
            lock.unlock();
          }
        });
    section.assertMutualExclusion(4 * 50);
  }

  @Test
  void fencingTokensRiseAcrossHoldsAndNeedAHold(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    assertThatThrownBy(() -> registry.fencingToken("foo"))
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("test:foo");
    lock.lock();
    long firstToken = registry.fencingToken("foo");
    lock.unlock();
    lock.lock();
    assertThat(registry.fencingToken("foo")).isGreaterThan(firstToken);
    lock.unlock();
  }

  @Test
  void badArgumentsAreRejectedWithTheirNameAndConditionsAreUnsupported(Warden warden)
      throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden);
    DistributedLock lock = registry.obtain("foo");
    assertThat(registry.lockName("foo")).isEqualTo("spring-integration:foo");
    assertThat(registry.lockName(42)).isEqualTo("spring-integration:42");
    assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> lock.lock(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ttl must be positive: PT0S");
    assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ttl must be positive: PT-1S");
    assertThatThrownBy(() -> registry.renewLock("foo", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ttl must be positive: null");
    assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    // a negative wait does not wait, as in Lock.tryLock
    assertThat(lock.tryLock(Duration.ofSeconds(-1), Duration.ofSeconds(5))).isTrue();
    assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).isTrue();
    lock.unlock();
    lock.unlock();
    assertThat(warden.lock("spring-integration:foo").isLocked()).isFalse();
    assertThat(registry).hasToString("WardenLockRegistry[prefix 'spring-integration:']");
    assertThat(lock).hasToString("WardenRegistryLock[spring-integration:foo]");
  }

  @Test
  void anUnlockWithTheInterruptFlagSetStillReleasesTheLockInRedisAndKeepsTheFlag(
      Warden warden, WardenFactory wardens) throws Exception {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    WardenLockRegistry other = new WardenLockRegistry(wardens.create(), "test:");
    Lock lock = registry.obtain("foo");
    lock.lock();
    Thread.currentThread().interrupt();
    try {
      lock.unlock();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
    assertThat(onAnotherThread(() -> other.obtain("foo").tryLock())).isTrue();
  }

  @Test
  void anInterruptedTryLockReturnsFalseAndKeepsTheFlag(Warden warden) {
    WardenLockRegistry registry = new WardenLockRegistry(warden, "test:");
    Lock lock = registry.obtain("foo");
    Thread.currentThread().interrupt();
    try {
      assertThat(lock.tryLock()).isFalse();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(warden.lock("test:foo").isLocked()).isFalse();
  }
}
