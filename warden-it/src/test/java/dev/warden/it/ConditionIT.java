package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Distributed conditions: misuse, signal order, signalAll, timeouts, interrupts, dead waiters. */
// WaitNotInLoop: each test checks what one await call returns, so none loops
@SuppressWarnings("WaitNotInLoop")
@ExtendWith(WardenExtension.class)
class ConditionIT {

  private static String waitersKey(String lock, String condition) {
    return "warden:{" + lock + "}:lock:cond:" + condition + ":waiters";
  }

  /** In its own thread: lock, await the condition, record, unlock. */
  private static CompletableFuture<Integer> awaitInThread(DistributedLock lock, String condition) {
    CompletableFuture<Integer> holdsAfter = new CompletableFuture<>();
    new Thread(
            () -> {
              lock.lock();
              try {
                lock.newCondition(condition).await();
                holdsAfter.complete(lock.getHoldCount());
              } catch (Throwable t) {
                holdsAfter.completeExceptionally(t);
              } finally {
                lock.unlock();
              }
            })
        .start();
    return holdsAfter;
  }

  @Test
  void usingAConditionWithoutHoldingTheLockThrows(Warden warden) {
    Condition condition = warden.lock("misuse").newCondition();
    assertThatThrownBy(condition::await)
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("condition 'default' of lock 'misuse'")
        .hasMessageContaining("not held");
    assertThatThrownBy(condition::signal).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(condition::signalAll)
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> warden.lock("misuse").newCondition(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("conditionName must not be null or blank: ' '");
  }

  @Test
  void signalWakesTheLongestWaitingAndSignalAllTheRest(RedisServer redis, WardenFactory wardens)
      throws Exception {
    List<CompletableFuture<Integer>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(awaitInThread(wardens.create().lock("order"), "c"));
      long queued = i + 1L;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard(waitersKey("order", "c")) == queued);
    }
    DistributedLock signaller = wardens.create().lock("order");
    signaller.lock();
    signaller.newCondition("c").signal();
    signaller.unlock();
    waiters.get(0).get(10, TimeUnit.SECONDS);
    await()
        .during(Duration.ofMillis(600))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !waiters.get(1).isDone() && !waiters.get(2).isDone());
    signaller.lock();
    signaller.newCondition("c").signalAll();
    signaller.unlock();
    waiters.get(1).get(10, TimeUnit.SECONDS);
    waiters.get(2).get(10, TimeUnit.SECONDS);
  }

  @Test
  void awaitGivesBackEveryHoldAndRestoresTheCountWhenSignalled(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock waiterLock = wardens.create().lock("restore");
    DistributedLock other = wardens.create().lock("restore");
    CompletableFuture<Integer> holdsAfter = new CompletableFuture<>();
    new Thread(
            () -> {
              waiterLock.lock();
              waiterLock.lock();
              try {
                waiterLock.newCondition().await();
                holdsAfter.complete(waiterLock.getHoldCount());
              } catch (Throwable t) {
                holdsAfter.completeExceptionally(t);
              } finally {
                waiterLock.unlock();
                waiterLock.unlock();
              }
            })
        .start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().zcard(waitersKey("restore", "default")) == 1);
    assertThat(other.tryLock(10, TimeUnit.SECONDS)).as("await released both holds").isTrue();
    other.newCondition().signal();
    other.unlock();
    assertThat(holdsAfter.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> !other.isLocked());
  }

  @Test
  void aTimedAwaitReturnsFalseAfterItsTimeHoldingTheLockAgain(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("timed");
    lock.lock();
    try {
      long start = System.nanoTime();
      assertThat(lock.newCondition().await(300, TimeUnit.MILLISECONDS)).isFalse();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_000L);
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(lock.newCondition().awaitNanos(TimeUnit.MILLISECONDS.toNanos(100)))
          .isNotPositive();
      assertThat(lock.getHoldCount()).isEqualTo(1);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void anInterruptedAwaitThrowsHoldingTheLockAgain(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("interrupted-await");
    AtomicReference<Object> outcome = new AtomicReference<>();
    CompletableFuture<Boolean> heldAfter = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              lock.lock();
              try {
                lock.newCondition().await();
                outcome.set("returned");
              } catch (InterruptedException e) {
                outcome.set(e);
              } finally {
                heldAfter.complete(lock.isHeldByCurrentThread());
                lock.unlock();
              }
            });
    waiter.start();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !lock.isLocked() && warden.stats().subscriptions() == 1);
    waiter.interrupt();
    assertThat(heldAfter.get(10, TimeUnit.SECONDS)).isTrue();
    waiter.join(10_000);
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void aWaiterWhoseProcessDiedDoesNotSwallowASignal(RedisServer redis, WardenFactory wardens)
      throws Exception {
    try (JvmProcess doomed =
        JvmProcess.start(ConditionWaiterMain.class, redis.uri(), "dead-cond", "c")) {
      doomed.awaitLine("AWAITING", Duration.ofSeconds(30));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().zcard(waitersKey("dead-cond", "c")) == 1);
      doomed.kill();
    }
    CompletableFuture<Integer> alive = awaitInThread(wardens.create().lock("dead-cond"), "c");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(waitersKey("dead-cond", "c")) == 2);
    // once the dead waiter's heartbeat has run out, a signal must skip it
    String beats = "warden:{dead-cond}:lock:cond:c:beats";
    String deadId = redis.redis().zrange(waitersKey("dead-cond", "c"), 0, 0).get(0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().zscore(beats, deadId) < serverMillis(redis));
    DistributedLock signaller = wardens.create().lock("dead-cond");
    signaller.lock();
    signaller.newCondition("c").signal();
    signaller.unlock();
    alive.get(10, TimeUnit.SECONDS);
  }

  private static double serverMillis(RedisServer redis) {
    List<String> time = redis.redis().time();
    return Long.parseLong(time.get(0)) * 1000.0 + Long.parseLong(time.get(1)) / 1000.0;
  }

  @Test
  void fairAndWriteLocksHaveConditionsToo(RedisServer redis, WardenFactory wardens)
      throws Exception {
    for (String type : List.of("fair", "write")) {
      Warden a = wardens.create();
      Warden b = wardens.create();
      DistributedLock waiting =
          type.equals("fair")
              ? a.fairLock("cond-" + type)
              : a.readWriteLock("cond-" + type).writeLock();
      DistributedLock signalling =
          type.equals("fair")
              ? b.fairLock("cond-" + type)
              : b.readWriteLock("cond-" + type).writeLock();
      CompletableFuture<Integer> done = new CompletableFuture<>();
      new Thread(
              () -> {
                waiting.lock();
                try {
                  waiting.newCondition().await();
                  done.complete(waiting.getHoldCount());
                } catch (Throwable t) {
                  done.completeExceptionally(t);
                } finally {
                  waiting.unlock();
                }
              })
          .start();
      String waiters =
          (type.equals("fair") ? "warden:{cond-fair}:fair" : "warden:{cond-write}:rw:write")
              + ":cond:default:waiters";
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().zcard(waiters) == 1);
      assertThat(signalling.tryLock(10, TimeUnit.SECONDS)).as(type).isTrue();
      signalling.newCondition().signal();
      signalling.unlock();
      assertThat(done.get(10, TimeUnit.SECONDS)).as(type).isEqualTo(1);
    }
  }

  @Test
  void awaitAfterARevivedHoldRestoresTheThreadsOwnCount() throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (RedisServer redis = RedisServer.start();
        Warden mine = Warden.connect(redis.uri());
        Warden other = Warden.connect(redis.uri())) {
      DistributedLock lock = mine.lock("cond-revived");
      // the thread's hold comes back with a restart from an older file: its client knows none
      thread.submit(() -> lock.lock(4, TimeUnit.SECONDS)).get();
      redis.redis().save();
      thread.submit(lock::unlock).get();
      redis.restart();

      Future<Boolean> heldAfter =
          thread.submit(
              () -> {
                lock.lock();
                try {
                  lock.newCondition().await(10, TimeUnit.SECONDS);
                } finally {
                  lock.unlock();
                }
                return lock.isHeldByCurrentThread();
              });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().zcard(waitersKey("cond-revived", "default")) == 1);
      DistributedLock signaller = other.lock("cond-revived");
      assertThat(signaller.tryLock(10, TimeUnit.SECONDS)).isTrue();
      signaller.newCondition().signal();
      signaller.unlock();
      assertThat(heldAfter.get(15, TimeUnit.SECONDS))
          .as("the thread's one lock() and one unlock() leave it holding nothing")
          .isFalse();
      assertThat(signaller.tryLock(5, TimeUnit.SECONDS)).as("nobody holds it").isTrue();
      signaller.unlock();
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void anAwaitThatCannotTakeTheLockBackThrowsAndTheUnlockAfterItSaysWhy(
      RedisServer redis, WardenFactory wardens) throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden mine =
          wardens.create(
              builder ->
                  builder
                      .uri(proxy.uri())
                      .commandTimeout(Duration.ofSeconds(1))
                      .recheckInterval(Duration.ofMillis(300)));
      DistributedLock lock = mine.lock("cond-lost");
      DistributedLock theirs = wardens.create().lock("cond-lost");
      Future<List<Throwable>> thrown =
          thread.submit(
              () -> {
                lock.lock();
                Throwable awaited =
                    Assertions.catchThrowable(
                        () -> lock.newCondition().await(30, TimeUnit.SECONDS));
                Throwable unlocked = Assertions.catchThrowable(lock::unlock);
                return java.util.Arrays.asList(awaited, unlocked);
              });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().zcard(waitersKey("cond-lost", "default")) == 1);
      assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
      theirs.newCondition().signal();
      // the waiter, signalled, waits for the lock this client holds: then it cannot reach Redis
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().hexists("warden:{cond-lost}:lock", "#q"));
      proxy.blackhole();
      theirs.unlock();

      List<Throwable> outcome = thrown.get(15, TimeUnit.SECONDS);
      assertThat(outcome.get(0)).as("await").isInstanceOf(WardenException.class);
      assertThat(outcome.get(1))
          .as("the unlock in the caller's finally")
          .isInstanceOf(LeaseExpiredException.class)
          .hasMessageContaining("lock 'cond-lost'")
          .hasCause(outcome.get(0));
      proxy.heal();
      assertThat(thread.submit(lock::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isFalse();
      assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).as("nothing is left held").isTrue();
      theirs.unlock();
    } finally {
      thread.shutdownNow();
    }
  }
}
