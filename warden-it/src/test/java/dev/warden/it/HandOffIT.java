package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hand-offs between threads of one client: a release with a thread of the same client waiting hands
 * the lock over in one script call, without starving other clients.
 */
@ExtendWith(WardenExtension.class)
class HandOffIT {

  @Test
  void aReleaseWithALocalWaiterHandsTheLockOverInOneScriptCall(RedisServer redis, Warden warden)
      throws Exception {
    DistributedLock lock = warden.lock("hand-off");
    lock.lock();
    long before = lock.fencingToken();
    redis.redis().configResetstat();
    CompletableFuture<Long> waiter = Blocking.inThread(() -> Waiters.tokenAfterWaiting(lock));
    // the lock is held by another owner of the waiter's client: it parks without asking Redis
    await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().parkedWaiters() == 1);
    assertThat(redis.commandCalls()).doesNotContainKeys("evalsha", "eval");
    lock.unlock();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(before);
    // the hand-over, then the waiter's own release; neither publishes, since no attempt ever
    // told the lock in Redis that somebody waits
    assertThat(redis.commandCalls().get("evalsha")).isEqualTo(2L);
    assertThat(redis.commandCalls()).doesNotContainKey("publish");
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void whileOnlyThisClientsThreadsWaitEveryReleaseIsAHandOff(RedisServer redis, Warden warden)
      throws Exception {
    int threads = 4;
    int acquisitions = 400;
    DistributedLock holder = warden.lock("turns-here");
    holder.lock();
    AtomicInteger taken = new AtomicInteger();
    AtomicInteger takingTurns = new AtomicInteger(threads);
    List<CompletableFuture<Long>> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      DistributedLock lock = warden.lock("turns-here");
      workers.add(
          Waiters.takingTurns(
              lock,
              turn -> {
                boolean more = taken.incrementAndGet() < acquisitions;
                if (!more) {
                  takingTurns.decrementAndGet(); // this worker will not wait again
                }
                // Release only once every other worker still taking turns is parked: on 2 cores
                // all three can be off the CPU between their unlock() and their next park, and a
                // release then rightly finds nobody to hand the lock to. What is tested is that
                // a release that finds a parked waiter of its client always hands over.
                awaitParked(warden, more ? takingTurns.get() - 1 : takingTurns.get());
                return more;
              }));
    }
    awaitParked(warden, threads);
    redis.redis().configResetstat();
    holder.unlock();
    for (CompletableFuture<Long> worker : workers) {
      assertThat(worker.get(60, TimeUnit.SECONDS)).isPositive();
    }
    // Hand-offs keep the hash; a real release deletes it. Only the last release, with nobody left
    // waiting, is a real one (a real release every 8 hand-offs would make about 45 of them).
    long acquired = taken.get();
    assertThat(acquired).isBetween((long) acquisitions, (long) acquisitions + threads - 1);
    assertThat(redis.commandCalls().getOrDefault("del", 0L)).isEqualTo(1L);
    // one script call per release: a transfer for each hand-off (the first holder's included),
    // the last release; waiters that find the lock held by their own client never ask Redis
    assertThat(redis.commandCalls().get("evalsha")).isEqualTo(acquired + 1);
    assertThat(holder.isLocked()).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000) // only a real release lets the outsider in
  void anotherClientsWaiterGetsInWhileThisClientsThreadsKeepHandingOver(WardenFactory wardens)
      throws Exception {
    Warden busy = wardens.create();
    AtomicBoolean stop = new AtomicBoolean();
    List<CompletableFuture<Long>> locals = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      locals.add(Waiters.takingTurns(busy.lock("shared-fairly"), turn -> !stop.get()));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> busy.stats().subscriptions() == 1);
    DistributedLock outsider = wardens.create().lock("shared-fairly");
    boolean got;
    try {
      got = outsider.tryLock(10, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
    }
    assertThat(got).isTrue();
    outsider.unlock();
    for (CompletableFuture<Long> local : locals) {
      assertThat(local.get(20, TimeUnit.SECONDS)).isPositive();
    }
  }

  @Test
  void aFairReleaseHandsTheLockToALocalHeadWithoutAMessage(RedisServer redis, Warden warden)
      throws Exception {
    DistributedLock lock = warden.fairLock("fair-hand-off");
    lock.lock();
    long before = lock.fencingToken();
    CompletableFuture<Long> waiter = Blocking.inThread(() -> Waiters.tokenAfterWaiting(lock));
    awaitParked(warden, 1);
    redis.redis().configResetstat();
    lock.unlock();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(before);
    // a release to a waiter of another client publishes 'w:<head>' for it; this one went straight
    assertThat(redis.commandCalls().getOrDefault("publish", 0L)).isZero();
    assertThat(lock.isLocked()).isFalse();
    assertThat(redis.redis().exists("warden:{fair-hand-off}:fair:queue")).isZero();
  }

  @Test
  void fairHandOffsFollowTheQueueAcrossClients(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden local = wardens.create();
    Warden other = wardens.create();
    DistributedLock holder = local.fairLock("fair-mixed");
    holder.lock();
    // queue order: local, other, local, local; the second local waiter is offered the lock when
    // the first releases, but the other client's waiter is ahead of it. The first waiter asks
    // again at once: it was handed the lock, so it has no place left and goes to the back.
    List<Warden> queue = List.of(local, other, local, local);
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Long>> waiters = new ArrayList<>();
    for (int i = 0; i < queue.size(); i++) {
      DistributedLock lock = queue.get(i).fairLock("fair-mixed");
      int index = i;
      waiters.add(
          Blocking.inThread(
              () -> {
                for (int round = index == 0 ? 2 : 1; round > 0; round--) {
                  lock.lock();
                  try {
                    order.add(index);
                    tokens.add(lock.fencingToken());
                  } finally {
                    lock.unlock();
                  }
                }
                return 0L;
              }));
      long queued = i + 1L;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().zcard("warden:{fair-mixed}:fair:queue") == queued);
    }
    awaitParked(local, 3);
    awaitParked(other, 1);
    holder.unlock();
    for (CompletableFuture<Long> waiter : waiters) {
      waiter.get(20, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 0);
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
    assertThat(holder.isLocked()).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aThreadFindingTheLockHeldByAnotherThreadOfItsClientWaitsWithoutAskingRedis(
      RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("held-here");
    lock.lock();
    long held = lock.fencingToken();
    CompletableFuture<Long> first = Blocking.inThread(() -> Waiters.tokenAfterWaiting(lock));
    awaitParked(warden, 1); // it asked Redis (twice: before and after subscribing)
    redis.redis().configResetstat();
    CompletableFuture<Long> second = Blocking.inThread(() -> Waiters.tokenAfterWaiting(lock));
    awaitParked(warden, 2);
    assertThat(redis.commandCalls().getOrDefault("evalsha", 0L)).isZero();
    lock.unlock();
    long firstToken = first.get(10, TimeUnit.SECONDS);
    assertThat(second.get(10, TimeUnit.SECONDS)).isGreaterThan(firstToken);
    assertThat(firstToken).isGreaterThan(held);
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aLocalHoldWhoseExplicitLeaseRanOutDoesNotMakeOthersWait(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("throttle");
    // a wait that just ended leaves the client subscribed (for a second)
    lock.lock();
    CompletableFuture<Long> waited = Blocking.inThread(() -> Waiters.tokenAfterWaiting(lock));
    await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().parkedWaiters() == 1);
    lock.unlock();
    waited.get(10, TimeUnit.SECONDS);
    lock.lock(200, TimeUnit.MILLISECONDS); // never unlocked: it simply runs out
    await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
    // another thread of the same client asks Redis at once instead of waiting for a re-check
    // (a minute here) or a release that never comes
    assertThat(
            Blocking.inThread(() -> lock.tryLock(20, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS))
        .isTrue();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aReleaseMessageWakesTheWaitersOfOtherClients(RedisServer redis, WardenFactory wardens)
      throws Exception {
    // the releasing client ignores its own message; everybody else must not
    Warden releasing = wardens.create();
    Warden waiting = wardens.create();
    DistributedLock holder = releasing.lock("told-elsewhere");
    holder.lock();
    DistributedLock local = releasing.lock("told-elsewhere");
    CompletableFuture<Long> localWaiter = Blocking.inThread(() -> Waiters.tokenAfterWaiting(local));
    awaitParked(releasing, 1);
    DistributedLock remote = waiting.lock("told-elsewhere");
    CompletableFuture<Long> remoteWaiter =
        Blocking.inThread(() -> Waiters.tokenAfterWaiting(remote));
    awaitParked(waiting, 1);
    redis.redis().configResetstat();
    holder.unlock(); // hands over to the local waiter, whose release publishes
    // with a one-minute re-check (and a 30 s lease), only the message gets them in quickly
    assertThat(remoteWaiter.get(10, TimeUnit.SECONDS))
        .isGreaterThan(localWaiter.get(10, TimeUnit.SECONDS));
    assertThat(redis.commandCalls().get("publish")).isEqualTo(1L);
  }

  @Test
  void threadsWaitingTurnAfterTurnKeepOneSubscription(RedisServer redis, Warden warden)
      throws Exception {
    redis.redis().configResetstat();
    AtomicInteger counter = new AtomicInteger();
    List<CompletableFuture<Long>> workers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      DistributedLock lock = warden.lock("turns");
      workers.add(
          Waiters.takingTurns(
              lock,
              turn -> {
                counter.incrementAndGet();
                return turn < 200;
              }));
    }
    for (CompletableFuture<Long> worker : workers) {
      worker.get(30, TimeUnit.SECONDS);
    }
    assertThat(counter).hasValue(400);
    // the subscription outlives each wait by a second, so every later wait finds it in place
    assertThat(redis.commandCalls().getOrDefault("subscribe", 0L)).isLessThanOrEqualTo(1L);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().pubsubChannels("warden:*").isEmpty());
  }

  /**
   * A release hands the lock to a parked waiter; the transfer runs in Redis but its reply is lost,
   * and by the time the release learns it failed, the waiter has given up. Nobody knows of the
   * transferred hold: it must be given back, not kept (with a watchdog lease of 30 s here).
   */
  @ParameterizedTest
  @ValueSource(strings = {"lock", "fair"})
  void aHandOffWhoseReplyIsLostAfterItsWaiterGaveUpIsGivenBack(
      String type, RedisServer redis, WardenFactory wardens) throws Exception {
    ExecutorService holding = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden =
          wardens.create(builder -> builder.uri(proxy.uri()).commandTimeout(Duration.ofSeconds(2)));
      String name = "lost-hand-off-" + type;
      String key = "warden:{" + name + "}:" + type;
      DistributedLock holder = type.equals("fair") ? warden.fairLock(name) : warden.lock(name);
      // a first hand-off loads the scripts: a script's first call is answered NOSCRIPT, and a
      // reply held by the proxy would keep it from running at all
      holding.submit(() -> holder.lock()).get();
      CompletableFuture<Long> first = Blocking.inThread(() -> Waiters.tokenAfterWaiting(holder));
      awaitParked(warden, 1);
      holding.submit(holder::unlock).get();
      first.get(10, TimeUnit.SECONDS);

      holding.submit(() -> holder.lock()).get();
      CompletableFuture<Boolean> waiter =
          Blocking.inThread(
              () ->
                  (type.equals("fair") ? warden.fairLock(name) : warden.lock(name))
                      .tryLock(500, TimeUnit.MILLISECONDS));
      awaitParked(warden, 1);
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> unlock = holding.submit(holder::unlock); // hands the lock over; no reply comes
      // the waiter gives up after its wait plus the verdict's margin (or at its deadline)
      await().atMost(Duration.ofSeconds(5)).until(waiter::isDone);
      assertThat(waiter.handle((got, failure) -> failure != null || !got).get()).isTrue();
      // the transfer's reply times out after 2 s: the transferred hold is given back
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().exists(key) == 0);
      assertThatThrownBy(() -> unlock.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(WardenException.class);
      proxy.heal();
      holding.submit(holder::unlock).get(10, TimeUnit.SECONDS); // its earlier run did release
      DistributedLock other =
          type.equals("fair") ? wardens.create().fairLock(name) : wardens.create().lock(name);
      assertThat(other.tryLock(1, TimeUnit.SECONDS)).isTrue();
      other.unlock();
    } finally {
      holding.shutdownNow();
    }
  }

  private static void awaitParked(Warden warden, int waiters) {
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(5))
        .until(() -> warden.stats().parkedWaiters() == waiters);
  }
}
