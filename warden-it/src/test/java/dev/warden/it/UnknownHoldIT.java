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
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Holds that Redis counts but the client does not know of: a hold brought back by a restart from an
 * older file, a re-entry retried after the lease was lost, a release whose reply was lost. The
 * client's count is the truth for the client: such a hold becomes the owner's next acquisition's
 * own (count 1, a new token) and ends with its release, so it never keeps other owners out while
 * its thread goes on locking, and a release is counted as done only when it was this release that
 * ended the hold.
 *
 * <p>Each test drives the owner's thread-bound calls on one thread of its own ({@link #thread}): a
 * hold belongs to its thread.
 */
class UnknownHoldIT {
  /** The revived hold's lease: without relocking it would end well within the others' wait. */
  private static final long REVIVED_LEASE_SECONDS = 4;

  private static final long OTHERS_WAIT_SECONDS = 10;

  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopThread() {
    thread.shutdownNow();
  }

  /** The lock types a thread can hold. */
  enum Kind {
    LOCK,
    FAIR_LOCK,
    WRITE_LOCK,
    READ_LOCK
  }

  private static DistributedLock lockOf(Warden warden, Kind kind) {
    return switch (kind) {
      case LOCK -> warden.lock("revived");
      case FAIR_LOCK -> warden.fairLock("revived");
      case WRITE_LOCK -> warden.readWriteLock("revived").writeLock();
      case READ_LOCK -> warden.readWriteLock("revived").readLock();
    };
  }

  /** What another client takes to show the lock free: the same lock, or the write lock. */
  private static DistributedLock rivalOf(Warden warden, Kind kind) {
    return kind == Kind.READ_LOCK
        ? warden.readWriteLock("revived").writeLock()
        : lockOf(warden, kind);
  }

  /**
   * Takes the lock on the owner's thread with a short lease, saves the snapshot, releases it, and
   * restarts the server from the snapshot: the hold is back in Redis, and its client knows none.
   */
  private void revive(RedisServer redis, DistributedLock lock) throws Exception {
    thread.submit(() -> lock.lock(REVIVED_LEASE_SECONDS, TimeUnit.SECONDS)).get();
    redis.redis().save();
    thread.submit(lock::unlock).get();
    redis.restart();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRevivedHoldDoesNotKeepOtherClientsOutWhileItsThreadKeepsLocking(Kind kind)
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        Warden mine = Warden.connect(redis.uri());
        Warden other = Warden.connect(redis.uri())) {
      DistributedLock lock = lockOf(mine, kind);
      revive(redis, lock);

      // the same thread takes and releases the lock every 300 ms, as a polling job does
      AtomicInteger turns = new AtomicInteger();
      ScheduledFuture<?> polling =
          thread.scheduleAtFixedRate(
              () -> {
                lock.lock(2, TimeUnit.SECONDS);
                lock.unlock();
                turns.incrementAndGet();
              },
              0,
              300,
              TimeUnit.MILLISECONDS);
      DistributedLock rival = rivalOf(other, kind);
      boolean got = rival.tryLock(OTHERS_WAIT_SECONDS, TimeUnit.SECONDS);
      try {
        assertThat(got).as("another client gets the lock while the thread keeps locking").isTrue();
      } finally {
        if (got) {
          rival.unlock();
        }
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> turns.get() >= 2);
      assertThat(polling.isDone()).as("the thread's locking never failed").isFalse();
      polling.cancel(false);
    }
  }

  @Test
  void aRevivedReadHoldDoesNotRefuseItsOwnThreadTheWriteLock() throws Exception {
    try (RedisServer redis = RedisServer.start();
        Warden mine = Warden.connect(redis.uri())) {
      DistributedLock read = mine.readWriteLock("revived").readLock();
      DistributedLock write = mine.readWriteLock("revived").writeLock();
      revive(redis, read);

      // the thread knows no read hold of its own: the write lock is no upgrade
      thread
          .submit(
              () -> {
                write.lock(2, TimeUnit.SECONDS);
                write.unlock();
              })
          .get(10, TimeUnit.SECONDS);
      assertThat(redis.redis().zcard("warden:{revived}:rw:readers"))
          .as("the revived read hold ended")
          .isZero();
    }
  }

  @Test
  void aReentryRetriedAfterTheLeaseWasLostLeavesNoHoldBehind() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy)) {
      String key = "warden:{lost}:lock";
      DistributedLock lock = mine.lock("lost");
      thread.submit(() -> lock.lock()).get();
      redis.redis().del(key); // lost (as with data a failover lost) before the watchdog looks
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> reentry = thread.submit(() -> lock.lock());
      // the re-entry ran (the lock was free: it took it afresh); its reply does not come back
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(key) == 1);
      proxy.cut(); // the reply is lost with the connection; the acquisition runs again: a replay
      proxy.heal();
      assertThatThrownBy(() -> reentry.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(LeaseExpiredException.class);
      assertThat(redis.redis().exists(key)).as("the replayed re-entry was given back").isZero();
    }
  }

  /**
   * A re-entry into a hold Redis lost takes the free lock afresh; the client gives that back and
   * reports the lost lease. When Redis freezes right after the re-entry's answer, that give-back
   * must not keep tryLock(wait) past its wait plus 500 ms.
   */
  @Test
  void aReentryIntoALostHoldReportsItWithinItsWaitWhenRedisFreezesAfterIt() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy)) {
      String key = "warden:{frozen}:lock";
      DistributedLock lock = mine.lock("frozen");
      warmUp(lock);
      thread.submit(() -> lock.lock()).get();
      redis.redis().del(key); // lost (as with data a failover lost) before the watchdog looks
      proxy.delay(Duration.ofMillis(500));
      long start = System.nanoTime();
      Future<Boolean> reentry = thread.submit(() -> lock.tryLock(3, TimeUnit.SECONDS));
      // the re-entry took the free lock; its answer is on its way: Redis freezes now
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> redis.redis().exists(key) == 1);
      redis.pause(Duration.ofSeconds(10));
      try {
        assertThatThrownBy(() -> reentry.get(20, TimeUnit.SECONDS))
            .hasCauseInstanceOf(LeaseExpiredException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("within the wait (3 s) plus 500 ms, and a second of slack for a busy machine")
            .isLessThan(Duration.ofMillis(4_500));
      } finally {
        redis.resume();
      }
      // once Redis answers again, the give-back (waited for within the call's budget only) ends
      // the hold the re-entry took
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis().exists(key) == 0);
    }
  }

  @Test
  void aReleaseRunAgainAfterItsReplyWasLostReportsAHoldLostBeforeIt() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy)) {
      DistributedLock lock = mine.lock("lost");
      warmUp(lock);
      thread.submit(() -> lock.lock()).get();
      redis.redis().del("warden:{lost}:lock"); // lost before the release; the watchdog not yet
      redis.redis().configResetstat();
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> unlock = thread.submit(lock::unlock);
      // the release ran, finding nothing; its reply does not come back
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.commandCalls().getOrDefault("evalsha", 0L) >= 1);
      proxy.cut();
      proxy.heal();
      assertThatThrownBy(() -> unlock.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(LeaseExpiredException.class);
    }
  }

  @Test
  void aReleaseRunAgainAfterItsReplyWasLostCountsItsOwnFirstRunAsDone() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy)) {
      String key = "warden:{lost}:lock";
      DistributedLock lock = mine.lock("lost");
      warmUp(lock);
      thread.submit(() -> lock.lock()).get();
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> unlock = thread.submit(lock::unlock);
      // the release ran; its reply does not come back
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(key) == 0);
      proxy.cut();
      proxy.heal();
      unlock.get(10, TimeUnit.SECONDS);
      assertThat(thread.submit(() -> lock.tryLock()).get()).isTrue();
      thread.submit(lock::unlock).get();
    }
  }

  /**
   * An unlock() of the last hold that fails (Redis unreachable past the command timeout) and never
   * ran must not leave a hold that outlives its lease: the caller's finally has run, and its thread
   * goes on with other work, here taking and releasing the same lock every 300 ms, as a polling job
   * does. Each of those lock() calls must not re-enter the hold the failed unlock left, which would
   * keep it held (and renewed) for as long as the thread goes on.
   */
  @Test
  void aLastUnlockThatFailedDoesNotKeepTheLockHeldWhileItsThreadGoesOn() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine =
            Warden.builder()
                .uri(proxy.uri())
                .watchdogTimeout(Duration.ofSeconds(3))
                .commandTimeout(Duration.ofSeconds(1))
                .build();
        Warden other = Warden.connect(redis.uri())) {
      DistributedLock lock = mine.lock("failed-unlock");
      warmUp(lock);
      thread.submit(() -> lock.lock()).get();
      proxy.refuse(); // the connection drops and cannot come back: the release never runs
      proxy.cut();
      Future<?> unlock = thread.submit(lock::unlock);
      assertThatThrownBy(() -> unlock.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(WardenException.class);
      proxy.heal();

      AtomicInteger turns = new AtomicInteger();
      ScheduledFuture<?> polling =
          thread.scheduleAtFixedRate(
              () -> {
                lock.lock();
                lock.unlock();
                turns.incrementAndGet();
              },
              0,
              300,
              TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> turns.get() >= 2);
      DistributedLock rival = other.lock("failed-unlock");
      boolean got = rival.tryLock(OTHERS_WAIT_SECONDS, TimeUnit.SECONDS);
      try {
        assertThat(got).as("another client gets the lock while the thread keeps locking").isTrue();
      } finally {
        if (got) {
          rival.unlock();
        }
      }
      assertThat(polling.isDone()).as("the thread's locking never failed").isFalse();
      polling.cancel(false);
    }
  }

  /**
   * A read hold that has ended for its client (its last unlock() failed, or its explicit lease ran
   * out) is no read hold the write lock must refuse as an upgrade: the thread gets the write lock.
   */
  @Test
  void aReadHoldThatEndedForItsClientDoesNotRefuseItsThreadTheWriteLock() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine =
            Warden.builder()
                .uri(proxy.uri())
                .watchdogTimeout(Duration.ofSeconds(3))
                .commandTimeout(Duration.ofSeconds(1))
                .build()) {
      DistributedLock read = mine.readWriteLock("ended-read").readLock();
      DistributedLock write = mine.readWriteLock("ended-read").writeLock();
      warmUp(read);
      thread.submit(() -> read.lock()).get();
      proxy.refuse();
      proxy.cut();
      Future<?> unlock = thread.submit(read::unlock);
      assertThatThrownBy(() -> unlock.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(WardenException.class);
      proxy.heal();
      writeOnce(write);

      // an explicit lease that ran out as asked
      thread.submit(() -> read.lock(200, TimeUnit.MILLISECONDS)).get();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> !thread.submit(read::isHeldByCurrentThread).get());
      writeOnce(write);
    }
  }

  private void writeOnce(DistributedLock write) throws Exception {
    thread
        .submit(
            () -> {
              write.lock();
              write.unlock();
            })
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * A multi-lock that cannot have every part in time gives back the parts it took without waiting,
   * and its thread goes on at once. That give-back must never end a hold the same thread takes
   * next: here its EVALSHA is answered NOSCRIPT (lock-release not loaded on this server yet, while
   * lock-acquire is) and runs as EVAL a round trip later, after the thread's next lock() of that
   * part (40 ms of latency each way make the order certain).
   */
  @Test
  void aMultiLocksGiveBackRunningLateDoesNotEndTheHoldItsThreadTookNext() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy);
        Warden other = Warden.connect(redis.uri())) {
      DistributedLock a = mine.lock("late-a");
      DistributedLock both = mine.multiLock(a, mine.lock("late-b"));
      DistributedLock otherB = other.lock("late-b");
      assertThat(otherB.tryLock()).isTrue(); // the multi-lock cannot have both
      redis.redis().scriptFlush(); // as after a restart: nothing loaded
      thread.submit(() -> mine.lock("late-c").lock()).get(); // lock-acquire is loaded again

      proxy.delay(Duration.ofMillis(40));
      thread
          .submit(
              () -> {
                assertThat(both.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
                a.lock(); // at once: behind the give-back of the part it took, on the wire
                return null;
              })
          .get(10, TimeUnit.SECONDS);
      proxy.heal();
      assertThat(thread.submit(a::isHeldByCurrentThread).get()).isTrue();
      assertThat(other.lock("late-a").tryLock(1, TimeUnit.SECONDS))
          .as("another client while the thread holds the part")
          .isFalse();
      assertThat(thread.submit(a::isHeldByCurrentThread).get()).isTrue();
      thread.submit(a::unlock).get();
      otherB.unlock();
    }
  }

  /**
   * An acquisition that ends while its attempt is still on its way gives that attempt back, and the
   * give-back must follow the attempt into Redis. After the server's script cache was emptied (a
   * restart, a failover, SCRIPT FLUSH), the attempt's EVALSHA is answered NOSCRIPT and sent again
   * as EVAL: a second send, after the give-back (whose script, lock-release, was loaded again by a
   * release). Here a slow network (400 ms each way) makes tryLock() end by its verdict (wait 0 plus
   * 500 ms) before that answer comes back.
   */
  @Test
  void anAttemptSentAgainAfterNoscriptBehindItsGiveBackLeavesNoHoldBehind() throws Exception {
    try (RedisServer redis = RedisServer.start();
        FaultProxy proxy = FaultProxy.start(redis);
        Warden mine = throughProxy(proxy)) {
      String key = "warden:{noscript}:lock";
      DistributedLock lock = mine.lock("noscript");
      thread.submit(() -> lock.lock()).get();
      redis.redis().scriptFlush(); // the script cache is empty, as after a restart
      thread.submit(lock::unlock).get(); // lock-release is loaded again; lock-acquire is not

      proxy.delay(Duration.ofMillis(400));
      Future<Boolean> attempt = thread.submit(() -> lock.tryLock());
      assertThatThrownBy(() -> attempt.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(WardenException.class);
      // the attempt, sent again as EVAL, reaches Redis after the give-back and takes the lock
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(key) == 1);
      proxy.heal();
      // the late grant is given back, well before its 3-minute lease ends
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().exists(key) == 0);
    }
  }

  /**
   * Takes and releases the lock once, so that its scripts are loaded: a script's first call is
   * answered NOSCRIPT, and a reply held by the proxy would keep it from running at all.
   */
  private void warmUp(DistributedLock lock) throws Exception {
    thread
        .submit(
            () -> {
              lock.lock();
              lock.unlock();
            })
        .get();
  }

  /** A client through the proxy whose watchdog does not look during a test. */
  private static Warden throughProxy(FaultProxy proxy) {
    return Warden.builder()
        .uri(proxy.uri())
        .watchdogTimeout(Duration.ofMinutes(3))
        .commandTimeout(Duration.ofSeconds(5))
        .build();
  }
}
