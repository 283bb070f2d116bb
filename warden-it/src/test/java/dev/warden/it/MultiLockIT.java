package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The multi-lock: all or nothing, a global order, one script per slot, full rollback. */
@ExtendWith(WardenExtension.class)
class MultiLockIT {

  private int counter; // protected by the multi-lock only

  /** Two lock names whose keys share a Redis Cluster hash slot. */
  private static List<String> sameSlotNames() {
    return sameSlotNames("pair");
  }

  /** Two lock names {@code <prefix>-<n>} whose keys share a slot, in the multi-lock's order. */
  private static List<String> sameSlotNames(String prefix) {
    int slot = SlotHash.getSlot("warden:{" + prefix + "-0}:lock");
    for (int i = 1; ; i++) {
      if (SlotHash.getSlot("warden:{" + prefix + "-" + i + "}:lock") == slot) {
        return globalOrder(prefix + "-0", prefix + "-" + i);
      }
    }
  }

  /** The names in the order the multi-lock takes them (by slot, then key). */
  private static List<String> globalOrder(String... names) {
    List<String> sorted = new ArrayList<>(List.of(names));
    sorted.sort(
        Comparator.comparingInt((String n) -> SlotHash.getSlot("warden:{" + n + "}:lock"))
            .thenComparing(n -> "warden:{" + n + "}:lock"));
    return sorted;
  }

  @Test
  void itHoldsEveryPartOrNone(WardenFactory wardens) {
    Warden mine = wardens.create();
    Warden theirs = wardens.create();
    DistributedLock all = mine.multiLock(mine.lock("m1"), mine.lock("m2"), mine.fairLock("m3"));
    all.lock();
    assertThat(all.isHeldByCurrentThread()).isTrue();
    assertThat(theirs.lock("m1").tryLock()).isFalse();
    assertThat(theirs.lock("m2").tryLock()).isFalse();
    assertThat(theirs.fairLock("m3").tryLock()).isFalse();
    all.unlock();
    assertThat(all.isHeldByCurrentThread()).isFalse();
    assertThat(theirs.lock("m1").isLocked()).isFalse();
    assertThat(theirs.fairLock("m3").isLocked()).isFalse();
    assertThat(mine.stats().holds()).isZero();
  }

  @Test
  void locksOfOneHashSlotAreTakenByOneScriptCall(RedisServer redis, Warden warden) {
    List<String> names = sameSlotNames();
    DistributedLock pair = warden.multiLock(warden.lock(names.get(0)), warden.lock(names.get(1)));
    pair.lock(); // loads the script
    pair.unlock();
    redis.redis().configResetstat();
    pair.lock();
    assertThat(redis.commandCalls().get("evalsha")).isEqualTo(1L);
    assertThat(warden.lock(names.get(0)).isLocked()).isTrue();
    assertThat(warden.lock(names.get(1)).isLocked()).isTrue();
    pair.unlock();
  }

  @Test
  void twoThreadsTakingTheSameLocksInOppositeOrdersNeverDeadlock(WardenFactory wardens)
      throws Exception {
    List<String> sameSlot = sameSlotNames();
    for (List<String> names : List.of(List.of("x", "y", "z"), sameSlot)) {
      Warden a = wardens.create();
      Warden b = wardens.create();
      List<DistributedLock> forward = new ArrayList<>();
      List<DistributedLock> backward = new ArrayList<>();
      for (String name : names) {
        forward.add(a.lock(name));
        backward.add(0, b.lock(name));
      }
      DistributedLock first = a.multiLock(forward.toArray(new DistributedLock[0]));
      DistributedLock second = b.multiLock(backward.toArray(new DistributedLock[0]));
      counter = 0;
      CountDownLatch gate = new CountDownLatch(1);
      CompletableFuture<Void> one = CompletableFuture.runAsync(() -> rounds(first, gate));
      CompletableFuture<Void> two = CompletableFuture.runAsync(() -> rounds(second, gate));
      gate.countDown();
      one.get(60, TimeUnit.SECONDS);
      two.get(60, TimeUnit.SECONDS);
      assertThat(counter).as(names.toString()).isEqualTo(2 * 40);
    }
  }

  // ThreadPriorityCheck: Thread.yield() widens the window a lost update needs
  @SuppressWarnings("ThreadPriorityCheck")
  private void rounds(DistributedLock lock, CountDownLatch gate) {
    try {
      gate.await();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
    for (int i = 0; i < 40; i++) {
      lock.lock();
      try {
        int read = counter;
        Thread.yield();
        counter = read + 1;
      } finally {
        lock.unlock();
      }
    }
  }

  @Test
  void anInterruptHalfwayLeavesNothingHeld(WardenFactory wardens) throws Exception {
    List<String> order = globalOrder("i1", "i2");
    Warden mine = wardens.create();
    DistributedLock blocker = wardens.create().lock(order.get(1));
    blocker.lock();
    DistributedLock all = mine.multiLock(mine.lock("i1"), mine.lock("i2"));
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                all.lockInterruptibly();
                outcome.set(new AssertionError("acquired"));
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    thread.start();
    // halfway: the first part is taken, the second is awaited
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> mine.lock(order.get(0)).isLocked() && mine.stats().subscriptions() == 1);
    thread.interrupt();
    thread.join(10_000);
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(mine.lock(order.get(0)).isLocked()).isFalse();
    assertThat(mine.stats().holds()).isZero();
    blocker.unlock();
  }

  @Test
  void aTimeoutHalfwayLeavesNothingHeld(WardenFactory wardens) throws Exception {
    List<String> order = globalOrder("t1", "t2");
    Warden mine = wardens.create();
    DistributedLock blocker = wardens.create().lock(order.get(1));
    blocker.lock();
    DistributedLock all = mine.multiLock(mine.lock("t1"), mine.lock("t2"));
    assertThat(all.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(mine.lock(order.get(0)).isLocked()).isFalse();
    assertThat(mine.stats().holds()).isZero();
    blocker.unlock();
    assertThat(all.tryLock(5, TimeUnit.SECONDS)).isTrue();
    all.unlock();
  }

  @Test
  void withRedisFrozenHalfwayATimedTryLockReturnsWithinItsWaitAndGivesBackLater(
      RedisServer redis, WardenFactory wardens) throws Exception {
    List<String> order = globalOrder("f1", "f2");
    Warden mine = wardens.create();
    DistributedLock blocker = wardens.create().lock(order.get(1));
    blocker.lock();
    DistributedLock all = mine.multiLock(mine.lock("f1"), mine.lock("f2"));
    CompletableFuture<Long> tookMillis =
        CompletableFuture.supplyAsync(
            () -> {
              long started = System.nanoTime();
              try {
                assertThat(all.tryLock(1, TimeUnit.SECONDS)).isFalse();
              } catch (WardenException expected) {
                // Redis did not answer the last attempt within the wait plus 500 ms
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            });
    // halfway: the first part is taken, the second is awaited; then Redis freezes
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> mine.lock(order.get(0)).isLocked() && mine.stats().subscriptions() == 1);
    redis.pause(Duration.ofSeconds(10));
    try {
      // the bound is the wait plus 500 ms; the rest is room for a busy machine. Giving back the
      // part taken with a blocking unlock() would add up to the command timeout (5 s).
      assertThat(tookMillis.get(20, TimeUnit.SECONDS)).isLessThan(1_000L + 500L + 500L);
      assertThat(mine.stats().holds()).isZero();
    } finally {
      redis.resume();
    }
    // the give-back was sent, and runs once Redis answers again
    await().atMost(Duration.ofSeconds(5)).until(() -> !mine.lock(order.get(0)).isLocked());
    blocker.unlock();
  }

  @Test
  void aSameSlotGroupWaitsForItsBlockerAndTakesEverythingOnceFree(WardenFactory wardens)
      throws Exception {
    List<String> names = sameSlotNames();
    Warden mine = wardens.create();
    DistributedLock blocker = wardens.create().lock(names.get(1));
    blocker.lock();
    DistributedLock pair = mine.multiLock(mine.lock(names.get(0)), mine.lock(names.get(1)));
    CompletableFuture<Boolean> got =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                boolean acquired = pair.tryLock(20, TimeUnit.SECONDS);
                if (acquired) {
                  pair.unlock();
                }
                return acquired;
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(5)).until(() -> mine.stats().subscriptions() == 1);
    assertThat(mine.lock(names.get(0)).isLocked()).as("all or nothing while waiting").isFalse();
    blocker.unlock();
    assertThat(got.get(10, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * A same-slot group is taken by one script call and then adopted part by part: when a part the
   * thread held turns out lost (its lock was taken afresh), that adopt throws, and the parts
   * adopted before it and the grants after it are given back too, whichever part it was.
   */
  @Test
  void aGroupThatFindsOneOfItsPartsLostLeavesNothingHeld(WardenFactory wardens) {
    for (int lost = 0; lost < 2; lost++) {
      List<String> names = sameSlotNames("lost" + lost);
      Warden mine = wardens.create();
      Warden theirs = wardens.create();
      mine.lock(names.get(lost)).lock();
      assertThat(theirs.lock(names.get(lost)).forceUnlock()).isTrue(); // the hold is lost
      DistributedLock pair = mine.multiLock(mine.lock(names.get(0)), mine.lock(names.get(1)));
      assertThatThrownBy(pair::tryLock)
          .isInstanceOf(LeaseExpiredException.class)
          .hasMessageContaining("lock '" + names.get(lost) + "'");
      String other = names.get(1 - lost);
      assertThat(mine.lock(other).isHeldByCurrentThread()).as("part %s", other).isFalse();
      assertThat(mine.stats().holds()).isZero();
      // the give-backs are sent before tryLock throws, on this client's connection
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () -> !theirs.lock(names.get(0)).isLocked() && !theirs.lock(names.get(1)).isLocked());
      assertThat(theirs.multiLock(theirs.lock(names.get(0)), theirs.lock(names.get(1))).tryLock())
          .isTrue();
    }
  }

  /**
   * A waiting same-slot group whose attempt took every part but lost its reply, and whose next
   * attempt is refused by a part another owner took meanwhile, gives back the parts that attempt
   * took: all or none, also while it waits (they would otherwise keep everybody out for a lease).
   */
  @Test
  void aWaitingGroupGivesBackThePartsAnAttemptWhoseReplyWasLostTook(
      RedisServer redis, WardenFactory wardens) throws Exception {
    List<String> names = sameSlotNames("doubt");
    String first = "warden:{" + names.get(0) + "}:lock";
    String second = "warden:{" + names.get(1) + "}:lock";
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden mine = wardens.create(builder -> builder.uri(proxy.uri()));
      Warden theirs = wardens.create();
      DistributedLock pair = mine.multiLock(mine.lock(names.get(0)), mine.lock(names.get(1)));
      // load the scripts first: a script's first call is answered NOSCRIPT, and a reply held by
      // the proxy would keep it from running at all
      assertThat(pair.tryLock()).isTrue();
      pair.unlock();
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      CompletableFuture<Boolean> got =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  boolean acquired = pair.tryLock(20, TimeUnit.SECONDS);
                  if (acquired) {
                    pair.unlock();
                  }
                  return acquired;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      // the attempt took both parts; its reply does not come back
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().exists(first) == 1 && redis.redis().exists(second) == 1);
      // the first part's hold ends (its client never renewed a hold it did not know of), and
      // another owner takes it
      assertThat(theirs.lock(names.get(0)).forceUnlock()).isTrue();
      DistributedLock blocker = theirs.lock(names.get(0));
      blocker.lock();
      proxy.cut(); // the reply is lost with the connection; the next attempt is refused
      proxy.heal();
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(second) == 0);
      assertThat(got).as("still waiting for the first part").isNotDone();
      blocker.unlock();
      assertThat(got.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aWaitingGroupsGiveBackNeverUndoesTheGrantOfItsNextAttempt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    List<String> names = sameSlotNames("late");
    String first = "warden:{" + names.get(0) + "}:lock";
    String second = "warden:{" + names.get(1) + "}:lock";
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden mine = wardens.create(builder -> builder.uri(proxy.uri()));
      Warden theirs = wardens.create();
      DistributedLock pair = mine.multiLock(mine.lock(names.get(0)), mine.lock(names.get(1)));
      assertThat(pair.tryLock()).isTrue();
      pair.unlock();
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch checked = new CountDownLatch(1);
      CompletableFuture<Boolean> got =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  boolean acquired = pair.tryLock(20, TimeUnit.SECONDS);
                  if (acquired) {
                    held.countDown();
                    checked.await();
                    pair.unlock();
                  }
                  return acquired;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      // the first attempt takes both parts; its reply does not come back
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().exists(first) == 1 && redis.redis().exists(second) == 1);
      assertThat(theirs.lock(names.get(0)).forceUnlock()).isTrue();
      theirs.lock(names.get(0)).lock();
      // the give-back's script must be loaded again (NOSCRIPT, then EVAL: one more round trip),
      // while the group's next attempt finds lock-acquire-all loaded by the refused one
      redis.redis().scriptFlush();
      proxy.cut(); // the reply is lost with the connection
      proxy.heal();
      proxy.delay(Duration.ofMillis(250));
      // the next attempt is refused by the first part (which it marks), and says that the group's
      // owner holds the second: the client gives it back; meanwhile the first part comes free
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> redis.redis().hexists(first, "#w"));
      assertThat(theirs.lock(names.get(0)).forceUnlock()).isTrue();
      assertThat(held.await(10, TimeUnit.SECONDS)).as("the group acquired").isTrue();
      proxy.delay(Duration.ZERO);
      // the group's owner holds both parts until it unlocks: the give-back, which ran after the
      // grant, must not have undone it
      await("both parts held by the group's owner")
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(2))
          .until(() -> redis.redis().exists(first) == 1 && redis.redis().exists(second) == 1);
      assertThat(theirs.lock(names.get(1)).tryLock()).as("another owner in a held part").isFalse();
      checked.countDown();
      assertThat(got.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void unlockGivesBackEveryPartEvenWhenOneFails(WardenFactory wardens) {
    Warden mine = wardens.create();
    DistributedLock all = mine.multiLock(mine.lock("u1"), mine.lock("u2"), mine.lock("u3"));
    all.lock();
    wardens.create().lock("u2").forceUnlock();
    assertThatThrownBy(all::unlock)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("'u2'");
    assertThat(mine.lock("u1").isLocked()).isFalse();
    assertThat(mine.lock("u3").isLocked()).isFalse();
    assertThat(mine.stats().holds()).isZero();
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 1_000)
  void theLeaseKeeperRenewsEveryPart(WardenFactory wardens) {
    Warden mine = wardens.create();
    DistributedLock all =
        mine.multiLock(mine.lock("r1"), mine.fairLock("r2"), mine.readWriteLock("r3").writeLock());
    all.lock();
    Warden other = wardens.create();
    await() // more than two lease periods
        .during(Duration.ofMillis(2_500))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                other.lock("r1").isLocked()
                    && other.fairLock("r2").isLocked()
                    && other.readWriteLock("r3").writeLock().isLocked());
    assertThat(mine.stats().renewedHolds()).isEqualTo(3);
    all.unlock();
  }

  @Test
  void badPartsAndUnsupportedCallsAreRejectedClearly(Warden warden) {
    assertThatThrownBy(() -> warden.multiLock())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("locks must not be empty");
    assertThatThrownBy(() -> warden.multiLock(warden.lock("d"), warden.lock("d")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("locks[1] is given twice: lock 'd'");
    assertThatThrownBy(() -> warden.multiLock(warden.lock("n"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("locks[1] must be a lock of this Warden");
    DistributedLock multi = warden.multiLock(warden.lock("p"), warden.lock("q"));
    assertThatThrownBy(() -> warden.multiLock(multi))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("locks[0] must be a lock of this Warden");
    assertThatThrownBy(multi::fencingToken)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("supports lock, tryLock");
    assertThatThrownBy(() -> multi.acquire(Duration.ZERO))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
