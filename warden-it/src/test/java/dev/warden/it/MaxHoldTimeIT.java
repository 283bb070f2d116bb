package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenListener;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code maxHoldTime} on a real server: a hold is renewed until its limit and no longer, Redis
 * frees it at the limit (not a lease later), its holder is told with the reason, and a hold
 * released before the limit is no loss. Time is what is tested, so it runs in real time with
 * margins a busy machine tolerates.
 */
@ExtendWith(WardenExtension.class)
class MaxHoldTimeIT {
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final Duration LIMIT = Duration.ofMillis(2500);

  @Test
  void aStuckHolderIsRenewedUntilTheLimitThenToldAndTheLockFreedAtTheLimit(
      WardenFactory wardens, RedisServer redis) throws Exception {
    List<WardenListener.LossReason> heard = new CopyOnWriteArrayList<>();
    Warden limited =
        wardens.create(
            builder ->
                builder
                    .watchdogTimeout(LEASE)
                    .maxHoldTime(LIMIT)
                    .listener(
                        new WardenListener() {
                          @Override
                          public void leaseLost(
                              ObjectType type,
                              String name,
                              long holdId,
                              WardenListener.LossReason reason) {
                            heard.add(reason);
                          }
                        }));
    Warden other = wardens.create();
    long taken = System.nanoTime();
    LockHandle stuck = limited.lock("report").acquire(Duration.ZERO);
    CompletableFuture<Long> next =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                DistributedLock lock = other.lock("report");
                assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
                return System.nanoTime();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    stuck.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Duration toldAfter = Duration.ofNanos(System.nanoTime() - taken);
    Duration freedAfter = Duration.ofNanos(next.get(10, TimeUnit.SECONDS) - taken);
    assertThat(toldAfter)
        .as("renewed past a lease, told at the limit")
        .isBetween(LIMIT.minus(Duration.ofMillis(100)), LIMIT.plus(Duration.ofMillis(700)));
    assertThat(freedAfter)
        .as("freed at the limit, not a whole lease after it")
        .isBetween(LIMIT.minus(Duration.ofMillis(100)), LIMIT.plus(LEASE).minusMillis(100));
    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    assertThatThrownBy(stuck::close)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining(
            "it was held for its maximum hold time (PT2.5S): the lease keeper stopped renewing it");
    assertThat(redis.redis().exists("warden:{report}:lock")).isZero();
  }

  /**
   * A re-entry sets the lock's lease to a whole lease again; one in the last renewal period before
   * the limit has no renewal after it to bring the lease back to the limit. The limit ends the hold
   * in Redis by its token, so the lock is still freed at the limit, not a lease after it.
   */
  @Test
  void aReentryInTheLastRenewalPeriodDoesNotKeepTheLockPastTheLimit(WardenFactory wardens)
      throws Exception {
    // a renewal every 2 s: the third, at 6 s, leaves 1.8 s to re-enter before the limit
    Duration lease = Duration.ofSeconds(6);
    Duration limit = Duration.ofMillis(7800);
    AtomicInteger renewals = new AtomicInteger();
    List<WardenListener.LossReason> heard = new CopyOnWriteArrayList<>();
    Warden limited =
        wardens.create(
            builder ->
                builder
                    .watchdogTimeout(lease)
                    .maxHoldTime(limit)
                    .listener(
                        new WardenListener() {
                          @Override
                          public void leaseRenewed(ObjectType type, String name) {
                            renewals.incrementAndGet();
                          }

                          @Override
                          public void leaseLost(
                              ObjectType type,
                              String name,
                              long holdId,
                              WardenListener.LossReason reason) {
                            heard.add(reason);
                          }
                        }));
    DistributedLock lock = limited.lock("reentered");
    long taken = System.nanoTime();
    lock.lock();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> renewals.get() >= 3); // the last renewal before the limit
    lock.lock(); // its lease: 6 s from now again, over 4 s past the limit
    assertThat(Duration.ofNanos(System.nanoTime() - taken))
        .as("re-entered before the limit")
        .isLessThan(limit);

    DistributedLock next = wardens.create().lock("reentered");
    assertThat(next.tryLock(20, TimeUnit.SECONDS)).isTrue();
    Duration freedAfter = Duration.ofNanos(System.nanoTime() - taken);
    next.unlock();
    assertThat(freedAfter)
        .as("freed at the limit, not a lease after the re-entry")
        .isBetween(limit.minus(Duration.ofMillis(100)), limit.plus(Duration.ofSeconds(3)));
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !heard.isEmpty());
    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("it was held for its maximum hold time (PT7.8S)");
  }

  @Test
  void aHolderThatReleasesBeforeTheLimitLosesNothing(WardenFactory wardens) throws Exception {
    AtomicInteger renewals = new AtomicInteger();
    Warden limited =
        wardens.create(
            builder ->
                builder
                    .watchdogTimeout(LEASE)
                    .maxHoldTime(Duration.ofSeconds(20))
                    .listener(
                        new WardenListener() {
                          @Override
                          public void leaseRenewed(ObjectType type, String name) {
                            renewals.incrementAndGet();
                          }
                        }));
    DistributedLock lock = limited.lock("quick");
    lock.lock();
    LockHandle handle = limited.lock("quick-handle").acquire(Duration.ZERO);
    // renewed past their first lease (a renewal every third of it, two holds)
    org.awaitility.Awaitility.await().until(() -> renewals.get() >= 8);
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    assertThat(handle.isHeld()).isTrue();
    lock.unlock();
    handle.close();
    assertThat(handle.leaseLost()).isNotDone();
  }

  @Test
  void aLimitBelowTheWatchdogTimeoutIsRefusedAtBuildNamingBoth(RedisServer redis) {
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .uri(redis.uri())
                    .watchdogTimeout(Duration.ofSeconds(30))
                    .maxHoldTime(Duration.ofSeconds(10))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "maxHoldTime must be at least the watchdogTimeout (PT30S), the lease a hold is first"
                + " taken with: PT10S (for shorter holds, give the lock an explicit lease)");
  }
}
