package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A handle's explicit lease: fixed-lease acquisition, {@link LockHandle#extend(Duration)} and
 * {@link LockHandle#closeAfter(Duration)}, each owner-checked against a real redis-server.
 */
@ExtendWith(WardenExtension.class)
class HandleLeaseIT {
  private static final String KEY = "warden:{job}:lock";

  @Test
  void aFixedLeaseHandleIsNotRenewedAndExpires(RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("job");
    LockHandle hold = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
    assertThat(warden.stats().renewedHolds()).isZero();
    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 300L);
    await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
    assertThat(hold.isHeld()).isFalse();
  }

  @Test
  void extendOnALiveHoldRaisesItsTimeToLive(RedisServer redis, Warden warden) throws Exception {
    LockHandle hold =
        warden.lock("job").tryAcquire(Duration.ZERO, Duration.ofSeconds(2)).orElseThrow();
    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 2_000L);

    assertThat(hold.extend(Duration.ofSeconds(60))).isTrue();

    assertThat(redis.redis().pttl(KEY)).isBetween(50_000L, 60_000L);
    assertThat(hold.isHeld()).isTrue();
    hold.close();
  }

  @Test
  void extendOfAWatchdogHoldStopsItsRenewal(RedisServer redis, Warden warden) throws Exception {
    LockHandle hold = warden.lock("job").acquire(Duration.ZERO);
    assertThat(warden.stats().renewedHolds()).isEqualTo(1);

    assertThat(hold.extend(Duration.ofMillis(400))).isTrue();

    assertThat(warden.stats().renewedHolds()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> !hold.isHeld());
  }

  @Test
  void extendAfterExpiryReturnsFalseAndLeavesAnotherOwnersLockAlone(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock mine = wardens.create().lock("job");
    DistributedLock theirs = wardens.create().lock("job");
    LockHandle late = mine.tryAcquire(Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
    await().atMost(Duration.ofSeconds(5)).until(() -> !mine.isLocked());
    LockHandle taker = theirs.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
    long ttlBefore = redis.redis().pttl(KEY);

    assertThat(late.extend(Duration.ofMinutes(10))).isFalse();

    assertThat(redis.redis().pttl(KEY)).isBetween(1L, ttlBefore);
    assertThat(taker.isHeld()).isTrue();
    // told too: the signal completes on the callback executor, a moment after extend() returned
    late.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    taker.close();
  }

  @Test
  void closeAfterKeepsTheLockUntilTheTimePassesThenFreesIt(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock lock = wardens.create().lock("job");
    DistributedLock other = wardens.create().lock("job");
    LockHandle hold = lock.acquire(Duration.ZERO);
    long closedAt = System.nanoTime();

    hold.closeAfter(Duration.ofMillis(800));

    assertThat(lock.isLocked()).isTrue();
    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 800L);
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
    assertThat(System.nanoTime() - closedAt).isGreaterThanOrEqualTo(700_000_000L);
    assertThat(other.tryAcquire(Duration.ZERO)).isPresent();
    // the handle is closed: nothing more to extend, a second close is a no-op, no lost signal
    assertThat(hold.extend(Duration.ofSeconds(1))).isFalse();
    hold.close();
    assertThat(hold.leaseLost().toCompletableFuture().isDone()).isFalse();
  }

  /**
   * A waiter of another client heard the holder's whole lease (30 s) before {@code closeAfter}
   * shortened it: its next re-check, due before the kept time ends, reads the shorter lease, and it
   * takes the lock when the kept time ends (7 s), not at the re-check after that (10 s from its
   * start: a recheck interval of 5 s). With the hint alone (the expiry it knew, 30 s) it did.
   */
  @Test
  void aWaiterTakesTheLockWhenTheTimeACloseAfterKeptItEnds(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock lock = wardens.create().lock("job");
    DistributedLock other =
        wardens.create(builder -> builder.recheckInterval(Duration.ofSeconds(5))).lock("job");
    LockHandle hold = lock.acquire(Duration.ZERO);
    CompletableFuture<LockHandle> waiter = other.acquireAsync(Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis().hexists(KEY, "#q"));
    long closedAt = System.nanoTime();

    hold.closeAfter(Duration.ofSeconds(7));

    LockHandle taken = waiter.get(30, TimeUnit.SECONDS);
    long tookNanos = System.nanoTime() - closedAt;
    assertThat(tookNanos).isGreaterThanOrEqualTo(6_900_000_000L).isLessThan(8_500_000_000L);
    taken.close();
  }

  @Test
  void closeAfterZeroReleasesAtOnce(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("job");
    LockHandle hold = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
    hold.closeAfter(Duration.ZERO);
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  void aLateCloseAfterChangesNothingOnceAnotherOwnerTookTheLock(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock mine = wardens.create().lock("job");
    DistributedLock theirs = wardens.create().lock("job");
    LockHandle late = mine.tryAcquire(Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
    await().atMost(Duration.ofSeconds(5)).until(() -> !mine.isLocked());
    LockHandle taker = theirs.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
    long ttlBefore = redis.redis().pttl(KEY);

    assertThatThrownBy(() -> late.closeAfter(Duration.ofMinutes(10)))
        .isInstanceOf(LeaseExpiredException.class);

    assertThat(redis.redis().pttl(KEY)).isBetween(1L, ttlBefore);
    assertThat(taker.isHeld()).isTrue();
    late.close(); // reported once: a no-op now
    taker.close();
  }

  @Test
  void extendAndCloseAfterWorkOnFairWriteAndReadLocksToo(WardenFactory wardens) throws Exception {
    Warden mine = wardens.create();
    Warden theirs = wardens.create();
    List<Function<Warden, DistributedLock>> types =
        List.of(
            w -> w.fairLock("fair"),
            w -> w.readWriteLock("rw-write").writeLock(),
            w -> w.readWriteLock("rw-read").readLock());
    for (Function<Warden, DistributedLock> type : types) {
      DistributedLock lock = type.apply(mine);
      LockHandle hold = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(500)).orElseThrow();
      assertThat(hold.extend(Duration.ofSeconds(2))).as("%s", lock).isTrue();
      assertThat(lock.remainTimeToLive()).as("%s", lock).isGreaterThan(1_000L);

      hold.closeAfter(Duration.ofMillis(300)); // a read lease is not shortened: 2 s then

      assertThat(lock.isLocked()).as("%s", lock).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
      type.apply(theirs).tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).orElseThrow().close();
    }
  }

  @Test
  void badLeasesAndKeepTimesAreRejectedByName(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("job");
    try (LockHandle hold = lock.acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> hold.extend(Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("leaseTime must be positive: PT-1S");
      assertThatThrownBy(() -> hold.extend(Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("leaseTime must be positive: PT0S");
      assertThatThrownBy(() -> hold.closeAfter(Duration.ofMillis(-5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("keepFor must not be negative: PT-0.005S");
      assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("leaseTime must be positive: PT0S");
      assertThat(hold.isHeld()).isTrue();
    }
  }
}
