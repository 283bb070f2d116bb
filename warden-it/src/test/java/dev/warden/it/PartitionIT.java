package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeaseExpiredException;
import dev.warden.LeasedSemaphore;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.AclSetuserArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Network partitions between a client and a real redis-server, made by a {@link FaultProxy}: a
 * silent partition, one that outlasts a lease, reset connections, one-way partitions and latency.
 * The Warden under test reaches Redis through the proxy, with a password (which no message may
 * show); the other clients reach Redis directly.
 *
 * <p>Timing bounds are the API's promises (a call fails after the command timeout, a timed {@code
 * tryLock} returns within its wait plus 500 ms), asserted with the margin below; each test prints
 * what it measured.
 */
@ExtendWith(WardenExtension.class)
class PartitionIT {
  private static final long COMMAND_TIMEOUT_MILLIS = 1_000;

  /**
   * The slack on "within the command timeout": Lettuce expires a command with a task on its event
   * loop, to the millisecond, so what remains is waking two threads (the loop, then the caller) on
   * a busy 2-core machine. The same 500 ms the API gives a timed {@code tryLock}'s verdict.
   */
  private static final long MARGIN_MILLIS = 500;

  /**
   * A timed call's promise is its wait plus 500 ms, and Warden's verdict timer fires exactly there:
   * a caller measures that plus a wake-up of the timer thread and of its own.
   */
  private static final long VERDICT_MILLIS = 500;

  private static final long WAKE_UP_MILLIS = 200;

  private static final String USER = "partitioned";
  private static final String PASSWORD = "pw-7d41c9e2-never-in-messages";

  // ---- 1. a silent partition, both ways ----

  @Test
  @WardenOptions(commandTimeoutMillis = COMMAND_TIMEOUT_MILLIS)
  void aSilentPartitionFailsEveryCallWithinItsBoundAndLeavesNothingBehind(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(uriThrough(redis, proxy)));
      Warden other = wardens.create();
      DistributedLock lock = warden.lock("bh-lock");
      // two names of one hash slot: the multi-lock takes them in one script call
      DistributedLock both =
          warden.multiLock(warden.lock("bh-group-299"), warden.lock("bh-group-1024"));
      DistributedSemaphore semaphore = warden.semaphore("bh-semaphore");
      DistributedCountDownLatch latch = warden.countDownLatch("bh-latch");
      LeasedSemaphore leased = warden.leasedSemaphore("bh-leased");
      assertThat(semaphore.trySetPermits(2)).isTrue();
      assertThat(leased.trySetPermits(1)).isTrue();
      leased.release(leased.tryAcquire());
      assertThat(latch.trySetCount(1)).isTrue();
      warmUp(lock, semaphore);
      assertThat(both.tryLock()).isTrue();
      both.unlock();
      LockHandle held = warden.lock("bh-held").acquire(Duration.ZERO);

      proxy.blackhole();
      Map<String, CompletableFuture<Timed>> calls = new LinkedHashMap<>();
      calls.put("lock()", timedAction(lock::lock));
      calls.put("tryLock()", timed(lock::tryLock));
      calls.put("tryLock(700 ms)", timed(() -> lock.tryLock(700, TimeUnit.MILLISECONDS)));
      calls.put("multi-lock tryLock()", timed(both::tryLock));
      calls.put("isLocked()", timed(lock::isLocked));
      calls.put("unlock (close)", timedAction(held::close));
      calls.put("semaphore tryAcquire()", timed(semaphore::tryAcquire));
      calls.put("leased semaphore tryAcquire()", timed(leased::tryAcquire));
      calls.put("latch getCount()", timed(latch::getCount));

      assertFailedWithin(calls.remove("lock()"), COMMAND_TIMEOUT_MILLIS, "lock 'bh-lock'");
      assertFailedWithin(calls.remove("tryLock()"), COMMAND_TIMEOUT_MILLIS, "lock 'bh-lock'");
      assertReturnedOrFailedWithin(calls.remove("tryLock(700 ms)"), 700, "lock 'bh-lock'");
      assertFailedWithin(
          calls.remove("multi-lock tryLock()"), COMMAND_TIMEOUT_MILLIS, "multi-lock of 2 locks");
      assertFailedWithin(calls.remove("isLocked()"), COMMAND_TIMEOUT_MILLIS, "lock 'bh-lock'");
      assertFailedWithin(calls.remove("unlock (close)"), COMMAND_TIMEOUT_MILLIS, "lock 'bh-held'");
      assertFailedWithin(
          calls.remove("semaphore tryAcquire()"),
          COMMAND_TIMEOUT_MILLIS,
          "semaphore 'bh-semaphore'");
      assertFailedWithin(
          calls.remove("leased semaphore tryAcquire()"),
          COMMAND_TIMEOUT_MILLIS,
          "leased semaphore 'bh-leased'");
      assertFailedWithin(
          calls.remove("latch getCount()"), COMMAND_TIMEOUT_MILLIS, "count-down latch 'bh-latch'");
      assertThat(calls).isEmpty();

      proxy.heal();
      // the requests held in the partition reach Redis now, in order, ahead of this one
      assertThat(lock.isLocked()).as("the lock, after the partition").isFalse();
      // nothing that failed left a hold or a permit behind
      assertThat(other.lock("bh-lock").tryLock()).as("another client takes the lock").isTrue();
      other.lock("bh-lock").unlock();
      DistributedLock otherBoth =
          other.multiLock(other.lock("bh-group-299"), other.lock("bh-group-1024"));
      assertThat(otherBoth.tryLock()).as("another client takes both parts").isTrue();
      otherBoth.unlock();
      assertThat(other.semaphore("bh-semaphore").availablePermits()).isEqualTo(2);
      assertThat(other.leasedSemaphore("bh-leased").availablePermits()).isEqualTo(1);
      assertThat(other.countDownLatch("bh-latch").getCount()).isEqualTo(1);
      // the release in doubt reached Redis: closing again finds it done
      held.close();
      assertThat(other.lock("bh-held").isLocked()).isFalse();
      // and everything works again through the healed connection
      assertThat(semaphore.tryAcquire()).isTrue();
      semaphore.release();
      latch.countDown();
      assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();

      // a client that cannot connect at all says where to, without the password
      proxy.refuse();
      String uri = uriThrough(redis, proxy);
      Throwable refused = catchThrowable(() -> wardens.create(builder -> builder.uri(uri)));
      assertThat(refused)
          .isExactlyInstanceOf(WardenException.class)
          .hasMessageContaining(String.valueOf(proxy.port()));
      assertNoPassword(refused);
    }
  }

  @Test
  void acquisitionsAbandonedInAPartitionLeaveNothingBehindAfterTheHeal(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(uriThrough(redis, proxy)));
      Warden other = wardens.create();
      DistributedLock cancelled = warden.lock("abandon-cancelled");
      DistributedLock interrupted = warden.lock("abandon-interrupted");
      assertThat(cancelled.tryLock()).isTrue(); // loads the scripts
      cancelled.unlock();

      proxy.blackhole();
      // its first attempt is on its way when the caller gives up
      CompletableFuture<LockHandle> async = cancelled.acquireAsync(Duration.ofSeconds(30));
      assertThat(async.cancel(false)).isTrue();
      // a waiting thread, interrupted while its attempt gets no answer
      Waiters.interruptOnceWaiting(
          interrupted::lockInterruptibly, () -> warden.stats().acquisitions() == 1);
      await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().acquisitions() == 0);

      proxy.heal();
      assertThat(cancelled.isLocked()).isFalse(); // behind the held requests on the connection
      assertThat(interrupted.isLocked()).isFalse();
      assertThat(other.lock("abandon-cancelled").tryLock()).isTrue();
      assertThat(other.lock("abandon-interrupted").tryLock()).isTrue();
    }
  }

  // ---- 2. healing after the lease ended ----

  @Test
  @WardenOptions(watchdogTimeoutMillis = 1_500, commandTimeoutMillis = 500)
  void aHolderPartitionedPastItsLeaseIsToldAndTheNextOwnersGetHigherTokens(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = wardens.create(builder -> builder.uri(uriThrough(redis, proxy)));
      Warden other = wardens.create();
      DistributedLock byHandle = holderWarden.lock("lease-ended-handle");
      DistributedLock byThread = holderWarden.lock("lease-ended-thread");
      LockHandle handle = byHandle.acquire(Duration.ZERO);
      byThread.lock();
      long handleToken = handle.fencingToken();
      long threadToken = byThread.fencingToken();

      long partitioned = System.nanoTime();
      proxy.blackhole();
      // another client gets in once Redis expires the hold, while the holder is cut off
      CompletableFuture<LockHandle> meanwhile =
          other.lock("lease-ended-handle").acquireAsync(Duration.ofSeconds(10));
      handle.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long lostAfter = millisSince(partitioned);
      LockHandle otherHandle = meanwhile.get(10, TimeUnit.SECONDS);
      long otherToken = otherHandle.fencingToken();
      long otherAfter = millisSince(partitioned);
      System.out.printf(
          "lease 1500 ms: holder told after %d ms; other client in after %d ms%n",
          lostAfter, otherAfter);
      // the local deadline runs from the last renewal sent, at most a lease after the partition
      assertThat(lostAfter).isLessThanOrEqualTo(1_500 + MARGIN_MILLIS);
      assertThat(otherToken).isGreaterThan(handleToken);

      proxy.heal();
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
      assertThatThrownBy(byThread::unlock)
          .isInstanceOf(LeaseExpiredException.class)
          .hasMessageContaining("lease-ended-thread")
          .hasMessageNotContaining(PASSWORD);
      assertThat(byThread.isHeldByCurrentThread()).isFalse();
      // the renewals held in the partition changed nothing for the new owner
      assertThat(otherHandle.isHeld()).isTrue();
      // and after it: the healed holder takes both locks again, with higher tokens
      assertThat(byThread.tryLock()).isTrue();
      assertThat(byThread.fencingToken()).isGreaterThan(threadToken);
      byThread.unlock();
      otherHandle.close();
      try (LockHandle again = byHandle.acquire(Duration.ofSeconds(5))) {
        assertThat(again.fencingToken()).isGreaterThan(otherToken);
      }
    }
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 500)
  void anUnlockThatFailedInThePartitionRanAtTheHealAndIsNotReportedAsALostLease(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(uriThrough(redis, proxy)));
      DistributedLock byThread = warden.lock("doubt-thread");
      byThread.lock(); // loads the scripts: one still to load would never run from the partition
      byThread.unlock();
      LockHandle handle = warden.lock("doubt-handle").acquire(Duration.ZERO);
      byThread.lock();

      proxy.blackhole();
      assertThatThrownBy(handle::close).isExactlyInstanceOf(WardenException.class);
      assertThatThrownBy(byThread::unlock).isExactlyInstanceOf(WardenException.class);
      proxy.heal(); // both releases reach Redis now, well within the 3 s lease
      await()
          .atMost(Duration.ofSeconds(2))
          .until(
              () ->
                  redis.redis().exists("warden:{doubt-handle}:lock", "warden:{doubt-thread}:lock")
                      == 0);
      // a renewal round (every second) now finds both holds gone: their owners' own releases
      await().atMost(Duration.ofSeconds(5)).until(() -> warden.stats().renewedHolds() == 0);
      assertThat(handle.leaseLost().toCompletableFuture().isDone()).isFalse();
      handle.close(); // the retry finds the release done
      byThread.unlock();
      assertThat(byThread.isHeldByCurrentThread()).isFalse();
      assertThat(warden.stats().holds()).isZero();
    }
  }

  // ---- 3. reset connections ----

  @Test
  void resetConnectionsRecheckEveryHoldAtOnceAndWakeTheParkedWaiters(
      RedisServer redis, WardenFactory wardens) throws Exception {
    // a long lease and re-check interval: only the reconnect can explain what follows in seconds
    Duration long60s = Duration.ofSeconds(60);
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      String uri = uriThrough(redis, proxy);
      Warden holder =
          wardens.create(b -> b.uri(uri).watchdogTimeout(long60s).recheckInterval(long60s));
      Warden waiters = wardens.create(b -> b.uri(uri).recheckInterval(long60s));
      Warden direct = wardens.create();
      long start = System.nanoTime();
      LockHandle kept = holder.lock("cut-kept").acquire(Duration.ZERO);
      LockHandle deleted = holder.lock("cut-deleted").acquire(Duration.ZERO);
      LockHandle contended = direct.lock("cut-contended").acquire(Duration.ZERO);
      List<CompletableFuture<Long>> holderWaiters = new ArrayList<>();
      List<CompletableFuture<Long>> otherWaiters = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        DistributedLock onContended = holder.lock("cut-contended");
        holderWaiters.add(Blocking.inThread(() -> Waiters.tokenAfterWaiting(onContended)));
        DistributedLock onKept = waiters.lock("cut-kept");
        otherWaiters.add(Blocking.inThread(() -> Waiters.tokenAfterWaiting(onKept)));
      }
      assertThat(direct.countDownLatch("cut-latch").trySetCount(1)).isTrue();
      DistributedCountDownLatch latch = waiters.countDownLatch("cut-latch");
      CompletableFuture<Boolean> awaiter =
          Blocking.inThread(() -> latch.await(30, TimeUnit.SECONDS));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> holder.stats().parkedWaiters() == 2 && waiters.stats().parkedWaiters() == 3);

      proxy.refuse(); // nobody reconnects until the heal
      proxy.cut();
      assertThat(proxy.connections()).isZero();
      // while every connection is down: one hold is deleted, a lock and a latch open unseen
      assertThat(redis.redis().del("warden:{cut-deleted}:lock")).isEqualTo(1);
      contended.close();
      direct.countDownLatch("cut-latch").countDown();
      // its expiry as an instant (server ms): a TTL read later would fall with the time taken
      long keptExpiryBefore = redis.redis().pexpiretime("warden:{cut-kept}:lock");

      long healed = System.nanoTime();
      proxy.heal();
      deleted.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long lostAfter = millisSince(healed);
      for (CompletableFuture<Long> waiter : holderWaiters) {
        waiter.get(20, TimeUnit.SECONDS);
      }
      assertThat(awaiter.get(20, TimeUnit.SECONDS)).isTrue();
      long wokenAfter = millisSince(healed);
      System.out.printf(
          "after the heal: deleted hold reported in %d ms, parked waiters and awaiter in by %d ms%n",
          lostAfter, wokenAfter);
      // the keeper's first tick is 20 s after the first hold: only the reconnect re-checked
      assertThat(millisSince(start)).isLessThan(20_000L);
      // reconnecting waits at most 1 s (the capped back-off); then one renewal round trip
      assertThat(lostAfter).isLessThanOrEqualTo(1_000 + MARGIN_MILLIS + 1_000);
      assertThat(wokenAfter).isLessThan(10_000L); // the re-check interval is 60 s
      // the hold still present was renewed by the same round, and is not reported lost
      assertThat(redis.redis().pexpiretime("warden:{cut-kept}:lock"))
          .isGreaterThan(keptExpiryBefore);
      assertThat(kept.leaseLost().toCompletableFuture().isDone()).isFalse();
      assertThat(kept.isHeld()).isTrue();
      assertThatThrownBy(deleted::close).isInstanceOf(LeaseExpiredException.class);
      // its release reaches the other client's waiters through their new subscription
      long keptToken = kept.fencingToken();
      long released = System.nanoTime();
      kept.close();
      for (CompletableFuture<Long> waiter : otherWaiters) {
        assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(keptToken);
      }
      System.out.printf(
          "other client's waiters in %d ms after the release%n", millisSince(released));
      assertThat(millisSince(released)).isLessThan(10_000L);
    }
  }

  // ---- 4. one direction ----

  @ParameterizedTest
  @EnumSource(FaultProxy.Direction.class)
  @WardenOptions(commandTimeoutMillis = COMMAND_TIMEOUT_MILLIS)
  void aOneWayPartitionHangsNothingAndLeavesCountersExact(
      FaultProxy.Direction direction, RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden warden = wardens.create(builder -> builder.uri(uriThrough(redis, proxy)));
      Warden other = wardens.create();
      DistributedLock lock = warden.lock("oneway-lock");
      DistributedSemaphore semaphore = warden.semaphore("oneway-semaphore");
      assertThat(semaphore.trySetPermits(2)).isTrue();
      warmUp(lock, semaphore);

      proxy.blackhole(direction);
      Map<String, CompletableFuture<Timed>> calls = new LinkedHashMap<>();
      calls.put("lock()", timedAction(lock::lock));
      calls.put("tryLock()", timed(lock::tryLock));
      calls.put("tryLock(300 ms)", timed(() -> lock.tryLock(300, TimeUnit.MILLISECONDS)));
      calls.put("semaphore tryAcquire()", timed(semaphore::tryAcquire));
      calls.put(
          "semaphore tryAcquire(300 ms)",
          timed(() -> semaphore.tryAcquire(300, TimeUnit.MILLISECONDS)));
      calls.put("isLocked()", timed(lock::isLocked));
      System.out.println(direction + " blackholed:");
      assertFailedWithin(calls.remove("lock()"), COMMAND_TIMEOUT_MILLIS, "lock 'oneway-lock'");
      assertFailedWithin(calls.remove("tryLock()"), COMMAND_TIMEOUT_MILLIS, "lock 'oneway-lock'");
      assertReturnedOrFailedWithin(calls.remove("tryLock(300 ms)"), 300, "lock 'oneway-lock'");
      assertFailedWithin(
          calls.remove("semaphore tryAcquire()"),
          COMMAND_TIMEOUT_MILLIS,
          "semaphore 'oneway-semaphore'");
      assertReturnedOrFailedWithin(
          calls.remove("semaphore tryAcquire(300 ms)"), 300, "semaphore 'oneway-semaphore'");
      assertFailedWithin(calls.remove("isLocked()"), COMMAND_TIMEOUT_MILLIS, "lock 'oneway-lock'");
      assertThat(calls).isEmpty();

      proxy.heal();
      assertThat(lock.isLocked()).as("the lock, after the partition").isFalse();
      assertThat(other.lock("oneway-lock").isLocked()).isFalse();
      assertThat(other.semaphore("oneway-semaphore").availablePermits()).isEqualTo(2);
      contendExactly(
          List.of(warden, other),
          "oneway-lock",
          "oneway-semaphore",
          /* permits= */ 2,
          /* rounds= */ 10);
    }
  }

  // ---- 5. latency ----

  @Test
  @WardenOptions(commandTimeoutMillis = COMMAND_TIMEOUT_MILLIS)
  void latencyBeyondTheCommandTimeoutFailsClearlyAndBelowItKeepsCountsExact(
      RedisServer redis, WardenFactory wardens) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      String uri = uriThrough(redis, proxy);
      Warden warden = wardens.create(builder -> builder.uri(uri));
      Warden second = wardens.create(builder -> builder.uri(uri));
      Warden other = wardens.create();
      DistributedLock lock = warden.lock("slow-lock");
      DistributedSemaphore semaphore = warden.semaphore("slow-semaphore");
      assertThat(semaphore.trySetPermits(2)).isTrue();
      warmUp(lock, semaphore);

      // each way: a request and its reply take at least 1.2 s
      proxy.delay(Duration.ofMillis(600));
      Map<String, CompletableFuture<Timed>> calls = new LinkedHashMap<>();
      calls.put("lock()", timedAction(lock::lock));
      calls.put("tryLock()", timed(lock::tryLock));
      calls.put("semaphore tryAcquire()", timed(semaphore::tryAcquire));
      calls.put("isLocked()", timed(lock::isLocked));
      System.out.println("600 ms each way:");
      for (Map.Entry<String, CompletableFuture<Timed>> call : calls.entrySet()) {
        String object =
            call.getKey().startsWith("semaphore")
                ? "semaphore 'slow-semaphore'"
                : "lock 'slow-lock'";
        Timed timed = call.getValue().get(10, TimeUnit.SECONDS);
        assertFailedWithin(call.getValue(), COMMAND_TIMEOUT_MILLIS, object);
        assertThat(timed.failure().getMessage())
            .as(call.getKey())
            .containsAnyOf("did not answer", "no answer", "timed out");
      }

      proxy.delay(Duration.ZERO);
      // what the slow requests took is given back once they arrive; nothing stays behind
      assertThat(lock.isLocked()).isFalse();
      assertThat(other.semaphore("slow-semaphore").availablePermits()).isEqualTo(2);

      // 300 ms each way: a round trip of 600 ms, slow but within the command timeout
      proxy.delay(Duration.ofMillis(300));
      long start = System.nanoTime();
      lock.lock();
      lock.unlock();
      System.out.printf("300 ms each way: lock and unlock in %d ms%n", millisSince(start));

      proxy.delay(Duration.ofMillis(20)); // a slow network under contention
      contendExactly(
          List.of(warden, second, other),
          "slow-lock",
          "slow-semaphore",
          /* permits= */ 2,
          /* rounds= */ 5);
    }
  }

  // ---- helpers ----

  /**
   * Runs two contenders per Warden, each taking the lock and a permit turn after turn around a
   * critical section, and checks the lock's exact count and rising tokens, the permits never
   * exceeded, and every permit back at the end.
   */
  private static void contendExactly(
      List<Warden> clients, String lockName, String semaphoreName, int permits, int rounds)
      throws Exception {
    CriticalSection locked = new CriticalSection();
    CriticalSection limited = new CriticalSection();
    int contenders = 2 * clients.size();
    long start = System.nanoTime();
    StartGate.run(
        contenders,
        rounds,
        Duration.ofSeconds(60),
        contender -> {
          Warden client = clients.get(contender % clients.size());
          DistributedLock lock = client.lock(lockName);
          lock.lock();
          try {
            locked.enterWithToken(lock.fencingToken());
          } finally {
            lock.unlock();
          }
          DistributedSemaphore semaphore = client.semaphore(semaphoreName);
          semaphore.acquire();
          try {
            limited.enter();
          } finally {
            semaphore.release();
          }
        });
    System.out.printf(
        "%d contenders x %d rounds on %d clients: %d ms%n",
        contenders, rounds, clients.size(), millisSince(start));
    locked.assertMutualExclusion(contenders * rounds);
    limited.assertNeverAbove(permits);
    assertThat(limited.counter()).isLessThanOrEqualTo(contenders * rounds);
    assertThat(clients.get(0).semaphore(semaphoreName).availablePermits()).isEqualTo(permits);
  }

  /** Loads the scripts and opens the connections, so that the first call under a fault is real. */
  private static void warmUp(DistributedLock lock, DistributedSemaphore semaphore) {
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
    assertThat(semaphore.tryAcquire()).isTrue();
    semaphore.release();
  }

  /** The user the Warden under test logs in as: its password must appear in no message. */
  private static String uriThrough(RedisServer redis, FaultProxy proxy) {
    redis
        .redis()
        .aclSetuser(
            USER,
            AclSetuserArgs.Builder.on()
                .addPassword(PASSWORD)
                .allKeys()
                .allChannels()
                .allCommands());
    return "redis://" + USER + ":" + PASSWORD + "@" + proxy.host() + ":" + proxy.port();
  }

  /** How a call ended and how long it took. */
  private record Timed(long millis, Object result, Throwable failure) {}

  /** Makes the call on a thread of its own, timing it there. */
  private static CompletableFuture<Timed> timed(Blocking.Call<?> call) {
    return Blocking.inThread(
        () -> {
          long start = System.nanoTime();
          try {
            Object result = call.call();
            return new Timed(millisSince(start), result, null);
          } catch (Exception e) {
            return new Timed(millisSince(start), null, e);
          }
        });
  }

  private static CompletableFuture<Timed> timedAction(Blocking.Action action) {
    return timed(
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * Checks that the call failed with a {@link WardenException} naming the object and not the
   * password, within {@code boundMillis} plus the margin.
   */
  private static void assertFailedWithin(
      CompletableFuture<Timed> call, long boundMillis, String object) throws Exception {
    Timed timed = call.get(boundMillis + 10_000, TimeUnit.MILLISECONDS);
    System.out.printf("  %s: failed after %d ms: %s%n", object, timed.millis(), timed.failure());
    assertThat(timed.failure())
        .as("%s after %d ms (result %s)", object, timed.millis(), timed.result())
        .isExactlyInstanceOf(WardenException.class)
        .hasMessageContaining(object);
    assertNoPassword(timed.failure());
    assertThat(timed.millis()).as(object).isLessThanOrEqualTo(boundMillis + MARGIN_MILLIS);
  }

  /** Checks that a timed call returned false, or failed as above, within its wait plus 500 ms. */
  private static void assertReturnedOrFailedWithin(
      CompletableFuture<Timed> call, long waitMillis, String object) throws Exception {
    Timed timed = call.get(waitMillis + 10_000, TimeUnit.MILLISECONDS);
    System.out.printf(
        "  %s (timed): ended after %d ms: %s%n",
        object, timed.millis(), timed.failure() != null ? timed.failure() : timed.result());
    if (timed.failure() != null) {
      assertThat(timed.failure())
          .isExactlyInstanceOf(WardenException.class)
          .hasMessageContaining(object);
      assertNoPassword(timed.failure());
    } else {
      assertThat(timed.result()).isEqualTo(false);
    }
    assertThat(timed.millis())
        .as(object)
        .isLessThanOrEqualTo(waitMillis + VERDICT_MILLIS + WAKE_UP_MILLIS);
  }

  /** Checks that no message in the failure's chain of causes shows the password. */
  private static void assertNoPassword(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain(PASSWORD);
    }
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
