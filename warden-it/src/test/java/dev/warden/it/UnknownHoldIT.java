package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
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
