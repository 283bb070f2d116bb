package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenListener;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A hold the lease keeper declares lost by its lease deadline is ended in Redis by its token (the
 * drop): nothing its owner does around that loss may leave the owner believing it holds a lock the
 * drop ended. The holder reaches Redis through a {@link FaultProxy}, whose replies are held back
 * while its requests still run.
 */
@ExtendWith(WardenExtension.class)
class LostHoldDropIT {

  /**
   * A re-entry sent before the loss runs in Redis before the drop (same hold, same token, count 2),
   * and its reply arrives after the loss: the drop then ended the hold the re-entry went into, so
   * the re-entry must not return as if its owner held the lock.
   */
  @Test
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 15_000)
  void aReentryAnsweredAfterTheHoldWasLostByItsDeadlineDoesNotReturnHeld(
      RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "late-reentry";
    Seen seen = new Seen();
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = holder(wardens, proxy, seen);
      Warden other = wardens.create();
      DistributedLock lock = holderWarden.lock(name);
      holderThread.submit((Runnable) lock::lock).get(10, TimeUnit.SECONDS);
      seen.firstRenewal();

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> reentry = holderThread.submit((Runnable) lock::lock);
      // the re-entry ran in Redis (count 2), its reply held back
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().hvals("warden:{" + name + "}:lock").contains("2"));
      seen.lost.get(10, TimeUnit.SECONDS);
      proxy.heal();

      Throwable failure = null;
      try {
        reentry.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
      String key = "warden:{" + name + "}:lock";
      System.out.printf(
          "after the re-entry: %s, pttl %d%n", redis.redis().hgetall(key), redis.redis().pttl(key));
      // the drop (sent at the loss, answered after the heal) ends the hold well before its lease
      boolean otherGotIn = other.lock(name).tryLock(1, TimeUnit.SECONDS);
      System.out.printf(
          "re-entry after the loss: %s; another owner got in: %s%n", failure, otherGotIn);
      // either the re-entry failed (its hold was lost), or the owner really holds the lock
      assertThat(failure == null && otherGotIn)
          .as("the re-entry returned as held while another owner took the lock")
          .isFalse();
      assertThat(failure).isInstanceOf(LeaseExpiredException.class);
    } finally {
      holderThread.shutdownNow();
    }
  }

  /**
   * An extend sent just before the lease deadline runs in Redis before the drop that a renewal's
   * failure after the deadline sends (that renewal went out before the extend took the hold from
   * the lease keeper), and its reply arrives after the loss: the drop ended the hold the extend
   * lengthened, so the extend must not say it is held.
   */
  @Test
  @WardenOptions(watchdogTimeoutMillis = 9_000, commandTimeoutMillis = 7_000)
  void anExtendAnsweredAfterTheHoldWasLostByItsDeadlineReturnsFalse(
      RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "late-extend";
    Seen seen = new Seen();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = holder(wardens, proxy, seen);
      Warden other = wardens.create();
      LockHandle handle = holderWarden.lock(name).acquire(Duration.ZERO);
      seen.firstRenewal();
      long scripts = redis.commandCalls().getOrDefault("evalsha", 0L);

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      // two more renewals ran in Redis, unanswered (every 3 s): the lease deadline comes 3 s
      // later, and the first of them fails (its command timeout) 1 s after it, 3 s before the
      // extend sent now would
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.commandCalls().getOrDefault("evalsha", 0L) >= scripts + 2);
      CompletableFuture<Boolean> extended =
          CompletableFuture.supplyAsync(() -> handle.extend(Duration.ofSeconds(30)));
      handle.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      proxy.heal();

      boolean result = extended.get(10, TimeUnit.SECONDS);
      boolean otherGotIn = other.lock(name).tryLock();
      System.out.printf(
          "extend after the loss: %s; another owner got in: %s%n", result, otherGotIn);
      assertThat(result && otherGotIn)
          .as("the extend said the hold is kept while another owner took the lock")
          .isFalse();
      assertThat(result).isFalse();
    }
  }

  /** What the holder's client tells its listener: its renewals, and its first lost lease. */
  private static final class Seen implements WardenListener {
    final AtomicInteger renewals = new AtomicInteger();
    final CompletableFuture<Void> lost = new CompletableFuture<>();

    @Override
    public void leaseRenewed(ObjectType type, String name) {
      renewals.incrementAndGet();
    }

    @Override
    public void leaseLost(ObjectType type, String name) {
      lost.complete(null);
    }

    /** Waits until the lease keeper renewed a hold: its renewals are under way. */
    void firstRenewal() {
      await().atMost(Duration.ofSeconds(10)).until(() -> renewals.get() >= 1);
    }
  }

  /** The holder's Warden: it reaches Redis through {@code proxy} and tells {@code seen}. */
  private static Warden holder(WardenFactory wardens, FaultProxy proxy, Seen seen) {
    return wardens.create(builder -> builder.uri(proxy.uri()).listener(seen));
  }

  /** Each lock type whose holds the lease keeper renews, and the lock another owner then takes. */
  enum Renewed {
    LOCK,
    FAIR,
    WRITE,
    READ;

    DistributedLock held(Warden warden, String name) {
      return switch (this) {
        case LOCK -> warden.lock(name);
        case FAIR -> warden.fairLock(name);
        case WRITE -> warden.readWriteLock(name).writeLock();
        case READ -> warden.readWriteLock(name).readLock();
      };
    }

    /** A lock that the hold keeps from other owners: a read hold keeps the writers out. */
    DistributedLock contended(Warden warden, String name) {
      return this == READ ? warden.readWriteLock(name).writeLock() : held(warden, name);
    }
  }

  /**
   * Renewals whose replies are lost still reach Redis: the holder's lease deadline passes (it
   * counts from the last renewal answered) while Redis keeps renewing the hold. Before the drop
   * those renewals kept the hold a lease after its holder was told it lost it and after its unlock
   * threw, held by nobody (PartitionIT found it). Now the client ends it by its token when it
   * declares it lost, and the unlock does again if no such drop was answered: once the unlock has
   * thrown, another owner gets in.
   */
  @ParameterizedTest
  @EnumSource(Renewed.class)
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 500)
  void renewalsThatReachRedisAfterTheHolderWasToldItLostTheHoldDoNotKeepIt(
      Renewed type, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "late-renewal-" + type;
    Seen seen = new Seen();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = holder(wardens, proxy, seen);
      Warden other = wardens.create();
      LockHandle handle = type.held(holderWarden, name).acquire(Duration.ZERO);
      seen.firstRenewal();
      int renewedBefore = seen.renewals.get();
      Map<String, Long> before = redis.commandCalls();

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      handle.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Map<String, Long> after = redis.commandCalls();
      proxy.heal();
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);

      long scripts = after.get("evalsha") - before.get("evalsha");
      System.out.printf(
          "%s: renewals answered before the cut %d; scripts run by Redis meanwhile %d%n",
          type, renewedBefore, scripts);
      // renewals reached Redis after the cut (the case this test is about), and yet the hold
      // ended with its holder's unlock, not a lease later
      assertThat(scripts).isGreaterThanOrEqualTo(2);
      assertThat(type.contended(other, name).tryLock()).isTrue();
      type.contended(other, name).unlock();
    }
  }

  /**
   * Replies are lost while requests still run (a one-way partition), on a Redis that has not run
   * the lock type's release script since it started (a restart, a failover to a replica: its script
   * cache is empty), though its renewal script ran. Renewals reach Redis and keep the hold after
   * its deadline; the drop must reach it too, without waiting for a NOSCRIPT reply that never
   * comes: once the holder's unlock has thrown, in the partition, another owner gets in.
   */
  @ParameterizedTest
  @EnumSource(Renewed.class)
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 500)
  void aLostHoldIsDroppedInAOneWayPartitionWhereRedisHasNotCachedTheReleaseScript(
      Renewed type, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "uncached-drop-" + type;
    redis.redis().scriptFlush();
    Seen seen = new Seen();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = holder(wardens, proxy, seen);
      Warden other = wardens.create();
      LockHandle handle = type.held(holderWarden, name).acquire(Duration.ZERO);
      seen.firstRenewal();

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      handle.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);

      // still partitioned: the hold ended with its holder's unlock, not a lease later
      assertThat(type.contended(other, name).tryLock()).isTrue();
      type.contended(other, name).unlock();
      proxy.heal();
    }
  }

  /**
   * Another client's acquirer waits while renewals that reach Redis after the holder's lease
   * deadline keep its hold (replies lost, requests still arriving). The drop the holder's client
   * sends with the loss ends the hold as a last release does, with its wake-up: the waiter gets the
   * lock at once, not when the late renewals' lease runs out (its own recheck is 10 s).
   */
  @ParameterizedTest
  @EnumSource(Renewed.class)
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 500)
  void theDropWakesAnotherClientsWaiter(Renewed type, RedisServer redis, WardenFactory wardens)
      throws Exception {
    String name = "drop-wakes-" + type;
    Seen seen = new Seen();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden = holder(wardens, proxy, seen);
      Warden other = wardens.create(builder -> builder.recheckInterval(Duration.ofSeconds(10)));
      LockHandle handle = type.held(holderWarden, name).acquire(Duration.ZERO);
      seen.firstRenewal();

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      CompletableFuture<Long> acquiredAt =
          Blocking.inThread(
              () -> {
                LockHandle theirs = type.contended(other, name).acquire(Duration.ofSeconds(20));
                long at = System.nanoTime();
                theirs.close();
                return at;
              });
      handle.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long lostAt = System.nanoTime();

      long waited = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(20, TimeUnit.SECONDS) - lostAt);
      System.out.printf("%s: the waiter got the lock %d ms after the loss%n", type, waited);
      assertThat(waited).isLessThan(1_000);
      proxy.heal();
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    }
  }
}
