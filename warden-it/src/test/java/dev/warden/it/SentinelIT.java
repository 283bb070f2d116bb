package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Warden on a Sentinel-managed master ({@code redis-sentinel://}): the primitives work, and Warden
 * follows a {@code SENTINEL FAILOVER} within about a second of the sentinels' {@code
 * +switch-master}, leaving the demoted (still writable) master alone. One sentinel set for the
 * class; each failover test leaves the set with another master, which the next test starts from.
 */
class SentinelIT {
  private static RedisSentinels sentinels;

  @BeforeAll
  static void startSentinels() {
    sentinels = RedisSentinels.start();
  }

  @AfterAll
  static void stopSentinels() {
    sentinels.close();
  }

  private static Warden warden() {
    return Warden.builder().uri(sentinels.uri()).build();
  }

  @Test
  void locksSemaphoresAndLatchesWorkThroughTheSentinels() throws Exception {
    try (Warden first = warden();
        Warden second = warden()) {
      DistributedLock lock = first.lock("basic");
      lock.lock();
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(second.lock("basic").tryLock(0, TimeUnit.SECONDS)).isFalse();
      long token = lock.fencingToken();
      lock.unlock();
      LockHandle handle = second.lock("basic").acquire(Duration.ZERO);
      assertThat(handle.fencingToken()).isGreaterThan(token);
      handle.close();

      DistributedSemaphore semaphore = first.semaphore("basic");
      assertThat(semaphore.trySetPermits(1)).isTrue();
      assertThat(second.semaphore("basic").tryAcquire()).isTrue();
      assertThat(semaphore.tryAcquire()).isFalse();
      second.semaphore("basic").release();
      assertThat(semaphore.tryAcquire(5, TimeUnit.SECONDS)).isTrue();

      DistributedCountDownLatch latch = first.countDownLatch("basic");
      assertThat(latch.trySetCount(1)).isTrue();
      CompletableFuture<Boolean> awaited =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return second.countDownLatch("basic").await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return false;
                }
              });
      await().atMost(Duration.ofSeconds(5)).until(() -> second.stats().subscriptions() == 1);
      latch.countDown();
      assertThat(awaited.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void usesTheDatabaseTheUriNames() {
    String database3 = sentinels.uri().replace("#", "/3#"); // redis-sentinel://h:p,.../3#wm
    try (Warden warden = Warden.builder().uri(database3).build()) {
      DistributedLock lock = warden.lock("db3");
      lock.lock();
      RedisServer master = sentinels.master();
      assertThat(master.redis().info("keyspace")).contains("db3:keys=");
      assertThat(master.redis().exists("warden:{db3}:lock")).isZero(); // not in database 0
      lock.unlock();
    }
  }

  @Test
  void unreachableSentinelsFailNamingTheMasterAndTheSentinelsButNoPassword() {
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .uri("redis-sentinel://s3cret@127.0.0.1:1,127.0.0.1:2#nowhere")
                    .commandTimeout(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("'nowhere'")
        .hasMessageContaining("127.0.0.1:1,127.0.0.1:2")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    String unknownMaster = sentinels.uri().replace("#" + sentinels.masterName(), "#other");
    assertThatThrownBy(() -> Warden.builder().uri(unknownMaster).build())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("'other'")
        .hasMessageContaining("127.0.0.1:" + sentinels.sentinelPorts().get(0));
  }

  @Test
  void followsAFailoverUnderContentionAndWritesNothingMoreToTheOldMaster() throws Exception {
    int threads = 4;
    CriticalSection section = new CriticalSection();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger entries = new AtomicInteger();
    ConcurrentLinkedQueue<Long> acquiredAt = new ConcurrentLinkedQueue<>();
    try (Warden first = warden();
        Warden second = warden();
        SwitchWatch watch = new SwitchWatch(sentinels)) {
      List<CompletableFuture<Void>> workers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        DistributedLock lock = (i % 2 == 0 ? first : second).lock("contended");
        workers.add(
            CompletableFuture.runAsync(
                () -> {
                  while (!stop.get()) {
                    try (LockHandle held = lock.acquire(Duration.ofSeconds(30))) {
                      acquiredAt.add(System.nanoTime());
                      section.enterWithToken(held.fencingToken());
                      entries.incrementAndGet();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    }
                  }
                }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> entries.get() >= 50);
      RedisServer old = sentinels.master();
      assertThat(SwitchWatch.wardenClients(old)).isEqualTo(4); // 2 Wardens x (commands, pub/sub)

      CompletableFuture<RedisServer> failedOver =
          CompletableFuture.supplyAsync(sentinels::failover);
      long left =
          SwitchWatch.awaitNanos(Duration.ofSeconds(10), () -> SwitchWatch.wardenClients(old) == 0);
      long firstAfter =
          SwitchWatch.awaitNanos(
              Duration.ofSeconds(10), () -> acquiredAt.stream().anyMatch(t -> t - left > 0));
      long firstAcquired =
          acquiredAt.stream().filter(t -> t - left > 0).min(Long::compare).orElseThrow();
      RedisServer promoted = failedOver.get(30, TimeUnit.SECONDS);
      long selected = watch.selectedAt();
      long switched = watch.switchedAt();
      long scriptsOnOld = SwitchWatch.scriptCalls(old);
      int entriesAtSwitch = entries.get();
      await().atMost(Duration.ofSeconds(10)).until(() -> entries.get() >= entriesAtSwitch + 100);

      // the old master is still a writable master, yet Warden sent it nothing more
      assertThat(String.valueOf(old.redis().role().get(0))).isEqualTo("master");
      assertThat(SwitchWatch.scriptCalls(old)).isEqualTo(scriptsOnOld);
      assertThat(SwitchWatch.wardenClients(old)).isZero();
      assertThat(SwitchWatch.wardenClients(promoted)).isEqualTo(4);
      stop.set(true);
      CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      System.out.printf(
          "Sentinel failover under contention: +selected-slave at 0 ms, +switch-master at %d ms;"
              + " Warden left the old master at %d ms; first acquisition after that at %d ms"
              + " (%d ms after +switch-master); %d entries in all%n",
          millis(switched - selected),
          millis(left - selected),
          millis(firstAcquired - selected),
          millis(firstAcquired - switched),
          entries.get());
      assertThat(millis(left - switched)).isLessThan(1_000);
      assertThat(millis(firstAcquired - switched)).isLessThan(1_000);
      assertThat(firstAfter - firstAcquired).isNotNegative();
    }
    section.assertMutualExclusion(entries.get());
  }

  @Test
  void followsTheSwitchAnnouncedBySentinelsThatDidNotLeadTheFailover() throws Exception {
    // The set's failover() asks its first sentinel, which leads and alone announces the replica it
    // selects; a Warden that knows only the two others learns of the failover from their
    // +switch-master, or from its poll.
    List<Integer> ports = sentinels.sentinelPorts();
    String others =
        "redis-sentinel://127.0.0.1:"
            + ports.get(1)
            + ",127.0.0.1:"
            + ports.get(2)
            + "#"
            + sentinels.masterName();
    try (Warden warden = Warden.builder().uri(others).build();
        SwitchWatch watch = new SwitchWatch(sentinels)) {
      DistributedLock lock = warden.lock("others");
      lock.lock();
      lock.unlock();
      RedisServer old = sentinels.master();
      assertThat(SwitchWatch.wardenClients(old)).isEqualTo(2);

      CompletableFuture<RedisServer> failedOver =
          CompletableFuture.supplyAsync(sentinels::failover);
      long left =
          SwitchWatch.awaitNanos(Duration.ofSeconds(10), () -> SwitchWatch.wardenClients(old) == 0);
      RedisServer promoted = failedOver.get(30, TimeUnit.SECONDS);
      long afterSwitch = watch.millisAfterSwitch(left);
      System.out.printf(
          "Sentinel failover: a Warden that knows only the other sentinels left the old master"
              + " %d ms after the first +switch-master%n",
          afterSwitch);
      assertThat(afterSwitch).isLessThan(1_000);
      assertThat(SwitchWatch.wardenClients(promoted)).isEqualTo(2);
      assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
      assertThat(promoted.redis().exists("warden:{others}:lock")).isOne();
      lock.unlock();
    }
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  @Test
  void waitersParkedDuringAFailoverAreWokenByTheResubscription() throws Exception {
    // a one-minute re-check: only the wake-up on the new master's subscription gets in quickly
    try (Warden holderWarden = warden();
        Warden waiterWarden =
            Warden.builder().uri(sentinels.uri()).recheckInterval(Duration.ofMinutes(1)).build();
        SwitchWatch watch = new SwitchWatch(sentinels)) {
      LockHandle held = holderWarden.lock("parked").acquire(Duration.ZERO);
      DistributedLock waiter = waiterWarden.lock("parked");
      CompletableFuture<Long> acquired =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  LockHandle handle = waiter.acquire(Duration.ofSeconds(50));
                  long at = System.nanoTime();
                  handle.close();
                  return at;
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });
      await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().parkedWaiters() == 1);
      // The lock disappears without a release message (as if its lease ran out unannounced);
      // the waiter would wait out its one-minute re-check if nothing woke it.
      RedisServer master = sentinels.master();
      assertThat(master.redis().del("warden:{parked}:lock")).isEqualTo(1);
      // every linked replica has the deletion (a master demoted by an earlier test may still be
      // waiting for the sentinels to convert it: it never had the lock)
      long linked =
          master.redis().info("replication").lines().filter(l -> l.matches("slave\\d+:.*")).count();
      assertThat(master.redis().waitForReplication((int) linked, 5_000)).isEqualTo(linked);

      sentinels.failover();
      long acquiredAt = acquired.get(10, TimeUnit.SECONDS);
      System.out.printf(
          "Sentinel failover: a parked waiter acquired %d ms after +selected-slave, %d ms after"
              + " +switch-master%n",
          millis(acquiredAt - watch.selectedAt()), watch.millisAfterSwitch(acquiredAt));
      assertThat(watch.millisAfterSwitch(acquiredAt)).isLessThan(1_000);
      held.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
  }
}
