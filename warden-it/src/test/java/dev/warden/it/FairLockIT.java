package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What only the fair lock promises: FIFO order, head-only wake-ups, and a queue that heals. */
@ExtendWith(WardenExtension.class)
class FairLockIT {

  private static String queueKey(String name) {
    return "warden:{" + name + "}:fair:queue";
  }

  private static String entriesKey(String name) {
    return "warden:{" + name + "}:fair:entries";
  }

  private static CompletableFuture<Void> waitThenRecord(
      DistributedLock lock, int index, List<Integer> order) {
    return CompletableFuture.runAsync(
        () -> {
          lock.lock();
          try {
            order.add(index);
          } finally {
            lock.unlock();
          }
        });
  }

  @Test
  void waitersAcquireInTheOrderTheyFirstAskedAcrossWardens(RedisServer redis, WardenFactory wardens)
      throws Exception {
    List<Warden> clients = List.of(wardens.create(), wardens.create(), wardens.create());
    DistributedLock holder = wardens.create().fairLock("fifo");
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      waiters.add(waitThenRecord(clients.get(i % 3).fairLock("fifo"), i, order));
      long queued = i + 1L;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard(queueKey("fifo")) == queued);
    }
    holder.unlock();
    for (CompletableFuture<Void> waiter : waiters) {
      waiter.get(30, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(redis.redis().exists(queueKey("fifo"))).isZero();
    // a waiter that took the lock left no record of its queue entry behind
    assertThat(redis.redis().hgetall(entriesKey("fifo"))).isEmpty();
  }

  @Test
  void aWaiterHandedTheLockByItsOwnClientLeavesNoRecordOfItsEntry(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Warden client = wardens.create();
    DistributedLock holder = client.fairLock("own-hand-off");
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(waitThenRecord(client.fairLock("own-hand-off"), i, order));
      long queued = i + 1L;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard(queueKey("own-hand-off")) == queued);
    }
    // each release hands the lock straight to the head, a parked thread of the same client
    holder.unlock();
    for (CompletableFuture<Void> waiter : waiters) {
      waiter.get(30, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2);
    assertThat(redis.redis().exists(queueKey("own-hand-off"))).isZero();
    // else the record of every owner that ever waited stays as long as someone waits
    assertThat(redis.redis().hgetall(entriesKey("own-hand-off"))).isEmpty();
  }

  @Test
  void aReleaseTellsOnlyTheFirstWaiter(RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock holder = wardens.create().fairLock("head-only");
    holder.lock();
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    List<Integer> order = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiters.add(waitThenRecord(wardens.create().fairLock("head-only"), i, order));
      long queued = i + 1L;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard(queueKey("head-only")) == queued);
    }
    String head = redis.redis().zrange(queueKey("head-only"), 0, 0).get(0);
    BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> listener = client.connectPubSub()) {
      listener.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
              messages.add(channel + " -> " + message);
            }
          });
      String shared = "warden:{head-only}:fair:released";
      listener.sync().psubscribe(shared + "*");
      // the head's client alone hears it: on its own channel, which only that client subscribes
      String addressed = shared + ":" + head.substring(0, head.indexOf(':'));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().pubsubNumsub(shared).get(shared) == 4L);
      assertThat(redis.redis().pubsubNumsub(addressed).get(addressed)).isOne();
      holder.unlock();
      // the lock granted to the head directly (fair-release.lua's 'Grants'): only its client hears
      assertThat(messages.poll(10, TimeUnit.SECONDS))
          .startsWith(addressed + " -> granted ")
          .endsWith(" " + head);
      for (CompletableFuture<Void> waiter : waiters) {
        waiter.get(30, TimeUnit.SECONDS);
      }
    } finally {
      client.shutdown();
    }
    assertThat(order).containsExactly(0, 1, 2, 3);
  }

  @Test
  void tryLockWithoutWaitingNeverQueuesNorOvertakesAWaiter(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock holder = wardens.create().fairLock("no-barging");
    DistributedLock waiter = wardens.create().fairLock("no-barging");
    DistributedLock impatient = wardens.create().fairLock("no-barging");
    holder.lock();
    CompletableFuture<Void> waiting = waitThenRecord(waiter, 0, new CopyOnWriteArrayList<>());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(queueKey("no-barging")) == 1);
    assertThat(impatient.tryLock()).isFalse();
    assertThat(redis.redis().zcard(queueKey("no-barging"))).isEqualTo(1);
    holder.unlock();
    waiting.get(10, TimeUnit.SECONDS);
    assertThat(impatient.tryLock()).isTrue();
    impatient.unlock();
  }

  @Test
  void waitersThatGiveUpLeaveTheQueueAtOnce(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock holder = wardens.create().fairLock("give-up");
    DistributedLock quitter = wardens.create().fairLock("give-up");
    holder.lock();
    assertThat(quitter.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> redis.redis().zcard(queueKey("give-up")) == 0);

    Thread interrupted =
        new Thread(
            () -> {
              try {
                quitter.lockInterruptibly();
              } catch (InterruptedException expected) {
                // leaves the queue
              }
            });
    interrupted.start();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(queueKey("give-up")) == 1);
    interrupted.interrupt();
    interrupted.join(10_000);
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> redis.redis().zcard(queueKey("give-up")) == 0);
    holder.unlock();
    assertThat(holder.isLocked()).isFalse();
  }

  @Test
  void aKilledWaiterIsDroppedAndDoesNotBlockThoseBehindForLong(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock holder = wardens.create().fairLock("dead-waiter");
    DistributedLock behind = wardens.create().fairLock("dead-waiter");
    holder.lock();
    try (JvmProcess doomed =
        JvmProcess.start(HolderMain.class, redis.uri(), "dead-waiter", "30000", "fair")) {
      doomed.awaitLine("STARTED", Duration.ofSeconds(30));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> redis.redis().zcard(queueKey("dead-waiter")) == 1);
      CompletableFuture<Void> next = waitThenRecord(behind, 0, new CopyOnWriteArrayList<>());
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard(queueKey("dead-waiter")) == 2);
      doomed.kill();
      holder.unlock(); // hands the lock to the dead head first
      long start = System.nanoTime();
      next.get(15, TimeUnit.SECONDS);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      // the dead head's heartbeat runs out within 3 s of its last attempt
      assertThat(tookMillis).isLessThan(FAIR_HEARTBEAT_TIMEOUT_MILLIS + 2_000);
    }
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> redis.redis().zcard(queueKey("dead-waiter")) == 0);
    // the dead waiter dropped from the queue left no record of its entry either
    assertThat(redis.redis().hgetall(entriesKey("dead-waiter"))).isEmpty();
  }

  private static final long FAIR_HEARTBEAT_TIMEOUT_MILLIS = 3_000;

  @Test
  void theQueuesKeysExpireButOutliveEveryLiveWaiter(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock holder = wardens.create().fairLock("queue-expiry");
    holder.lock();
    CompletableFuture<Void> waiting =
        waitThenRecord(wardens.create().fairLock("queue-expiry"), 0, new CopyOnWriteArrayList<>());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(queueKey("queue-expiry")) == 1);
    List<String> keys =
        List.of("queue", "beats", "tickets", "entries").stream()
            .map(suffix -> "warden:{queue-expiry}:fair:" + suffix)
            .toList();
    // while the waiter asks again (every second), each key has an expiry, and it never comes
    // within two heartbeat timeouts (a waiter counts as dead after one); watched for longer than
    // keys given 4 timeouts once would take to come that close
    await()
        .during(Duration.ofMillis(2 * FAIR_HEARTBEAT_TIMEOUT_MILLIS + 1_000))
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                keys.stream()
                    .map(key -> redis.redis().pttl(key))
                    .allMatch(
                        ttl ->
                            ttl > 2 * FAIR_HEARTBEAT_TIMEOUT_MILLIS
                                && ttl <= 4 * FAIR_HEARTBEAT_TIMEOUT_MILLIS));
    holder.unlock();
    waiting.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aLiveWaiterIsKeptHoweverLongItWaitsAndNobodyOvertakesIt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock holder = wardens.create().fairLock("patient");
    holder.lock();
    List<Integer> order = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> patient =
        waitThenRecord(wardens.create().fairLock("patient"), 0, order);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(queueKey("patient")) == 1);
    // more than two heartbeat timeouts: a live waiter's own attempts keep it queued
    await()
        .during(Duration.ofMillis(2 * FAIR_HEARTBEAT_TIMEOUT_MILLIS + 500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().zcard(queueKey("patient")) == 1);
    CompletableFuture<Void> later = waitThenRecord(wardens.create().fairLock("patient"), 1, order);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().zcard(queueKey("patient")) == 2);
    holder.unlock();
    patient.get(10, TimeUnit.SECONDS);
    later.get(10, TimeUnit.SECONDS);
    assertThat(order).containsExactly(0, 1);
  }

  @Test
  void commandsPerAcquisitionDoNotGrowWithTheNumberOfWaiters(
      RedisServer redis, WardenFactory wardens) throws Exception {
    double few = commandsPerAcquisition(redis, wardens, "cost-2", 2);
    double many = commandsPerAcquisition(redis, wardens, "cost-32", 32);
    System.out.printf(
        "fair lock: %.1f Redis commands per acquisition at 2 waiters, %.1f at 32%n", few, many);
    assertThat(many).isLessThan(few * 1.5);
  }

  /** Commands per acquisition while N queued waiters take the lock one after the other. */
  private static double commandsPerAcquisition(
      RedisServer redis, WardenFactory wardens, String name, int waiters) throws Exception {
    Warden client = wardens.create();
    DistributedLock holder = wardens.create().fairLock(name);
    holder.lock();
    List<CompletableFuture<Void>> queued = new ArrayList<>();
    List<Integer> order = new CopyOnWriteArrayList<>();
    for (int i = 0; i < waiters; i++) {
      queued.add(waitThenRecord(client.fairLock(name), i, order));
      long n = i + 1L;
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().zcard(queueKey(name)) == n);
    }
    redis.redis().configResetstat();
    holder.unlock();
    for (CompletableFuture<Void> waiter : queued) {
      waiter.get(60, TimeUnit.SECONDS);
    }
    Map<String, Long> calls = redis.commandCalls();
    long total =
        calls.entrySet().stream()
            .filter(call -> !call.getKey().startsWith("config"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    assertThat(order).hasSize(waiters);
    return (double) total / waiters;
  }
}
