package dev.warden.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The meters' values after real acquisitions on a real redis-server. */
@ExtendWith(WardenExtension.class)
class WardenMetricsIT {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private long acquired(String type, String outcome) {
    Timer timer = registry.find("warden.acquire").tag("type", type).tag("outcome", outcome).timer();
    return timer == null ? 0 : timer.count();
  }

  private double waiting(String type) {
    return registry.get("warden.waiting").tag("type", type).gauge().value();
  }

  @Test
  void aLockTakenTwiceAndReleasedIsTwoAcquisitionsOneHoldAndNothingActiveAfter(Warden warden) {
    WardenMetrics.of(warden).bindTo(registry);
    DistributedLock lock = warden.lock("invoice-42");

    lock.lock();
    lock.lock();
    LongTaskTimer active = registry.get("warden.held.active").tag("type", "lock").longTaskTimer();
    assertThat(active.activeTasks()).isEqualTo(1);
    lock.unlock();
    lock.unlock();

    await().atMost(Duration.ofSeconds(5)).until(() -> acquired("lock", "acquired") == 2);
    Timer held = registry.get("warden.held").tag("type", "lock").timer();
    assertThat(held.count()).isEqualTo(1);
    assertThat(held.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(active.activeTasks()).isZero();
    assertThat(waiting("lock")).isZero();
    // no meter carries the unbounded name by default
    assertThat(registry.getMeters())
        .allSatisfy(meter -> assertThat(meter.getId().getTag("name")).isNull());
  }

  @Test
  void aWaiterIsCountedWhileItWaitsAndATimeoutIsTaggedTimedOut(Warden warden, WardenFactory more)
      throws Exception {
    WardenMetrics.of(warden).bindTo(registry);
    try (Warden other = more.create()) {
      LockHandle held = other.fairLock("report").acquire(Duration.ZERO);
      CompletableFuture<Boolean> waiter =
          Blocking.inThread(() -> warden.fairLock("report").tryLock(600, TimeUnit.MILLISECONDS));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiting("fair_lock") == 1.0);
      assertThat(waiter.get(10, TimeUnit.SECONDS)).isFalse();
      held.close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> acquired("fair_lock", "timed_out") == 1);
    Timer timedOut =
        registry.get("warden.acquire").tag("type", "fair_lock").tag("outcome", "timed_out").timer();
    assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(600);
    assertThat(waiting("fair_lock")).isZero();
    assertThat(acquired("fair_lock", "acquired")).isZero();
  }

  @Test
  void aWaitEndedByClosingTheWardenIsFailedAndACancelledOneIsCancelled(WardenFactory more)
      throws Exception {
    Warden closing = more.create();
    try (Warden other = more.create()) {
      WardenMetrics.of(closing).bindTo(registry);
      LockHandle held = other.lock("batch").acquire(Duration.ZERO);
      CompletableFuture<LockHandle> cancelled =
          closing.lock("batch").acquireAsync(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiting("lock") == 1.0);
      cancelled.cancel(false);
      await().atMost(Duration.ofSeconds(5)).until(() -> acquired("lock", "cancelled") == 1);

      CompletableFuture<LockHandle> failing =
          closing.lock("batch").acquireAsync(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiting("lock") == 1.0);
      closing.close();
      assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(WardenException.class);
      held.close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> acquired("lock", "failed") == 1);
    assertThat(waiting("lock")).isZero();
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 300)
  void renewalsAndALostLeaseAreCounted(RedisServer redis, Warden warden) throws Exception {
    WardenMetrics.of(warden).bindTo(registry);
    LockHandle handle = warden.lock("nightly").acquire(Duration.ZERO);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              var renewals = registry.find("warden.lease.renewals").tag("type", "lock").counter();
              return renewals != null && renewals.count() >= 2;
            });

    redis.redis().del("warden:{nightly}:lock");
    handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(
            registry
                .get("warden.lease.lost")
                .tag("type", "lock")
                .tag("reason", "expired")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    assertThat(registry.get("warden.held").tag("type", "lock").timer().count()).isEqualTo(1);
    assertThat(registry.get("warden.held.active").longTaskTimer().activeTasks()).isZero();
  }

  @Test
  void holdsEndedByTheMaximumHoldTimeAndByAGracefulCloseAreCountedByReason(WardenFactory wardens)
      throws Exception {
    Warden limited =
        wardens.create(
            builder ->
                builder
                    .watchdogTimeout(Duration.ofMillis(300))
                    .maxHoldTime(Duration.ofMillis(600)));
    WardenMetrics.of(limited).bindTo(registry);
    LockHandle stuck = limited.lock("stuck").acquire(Duration.ZERO);
    stuck.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    LockHandle unfinished = limited.lock("unfinished").acquire(Duration.ZERO);
    limited.close(Duration.ZERO);
    unfinished.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(lost("max_hold_time")).isEqualTo(1.0);
    assertThat(lost("shutdown")).isEqualTo(1.0);
    assertThat(registry.find("warden.lease.lost").tag("reason", "expired").counter()).isNull();
  }

  private double lost(String reason) {
    return registry.get("warden.lease.lost").tag("reason", reason).counter().count();
  }

  @Test
  void optedInNamesAreTaggedAndEveryOtherNameIsOther(Warden warden) throws Exception {
    WardenMetrics.builder(warden).lockNames(List.of("nightly-report")).build().bindTo(registry);
    warden.lock("nightly-report").acquire(Duration.ZERO).close();
    warden.lock("invoice-42").acquire(Duration.ZERO).close();
    warden.semaphore("pool").trySetPermits(1);
    assertThat(warden.semaphore("pool").tryAcquire()).isTrue();

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> registry.find("warden.acquire").timers().size() == 3);
    assertThat(
            registry
                .get("warden.acquire")
                .tag("name", "nightly-report")
                .tag("type", "lock")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(
            registry.get("warden.acquire").tag("name", "other").tag("type", "lock").timer().count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("warden.acquire")
                .tag("name", "other")
                .tag("type", "semaphore")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(registry.getMeters())
        .extracting(Meter::getId)
        .allSatisfy(id -> assertThat(id.getTag("name")).isIn("nightly-report", "other"));
    assertThatThrownBy(() -> WardenMetrics.builder(warden).lockNames(List.of("other")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lockNames must hold names, not null, blank or 'other': other");
  }

  @Test
  void closeStopsMeasuringAndEndsTheActiveTimings(Warden warden) throws Exception {
    WardenMetrics metrics = WardenMetrics.of(warden);
    metrics.bindTo(registry);
    LockHandle handle = warden.lock("long").acquire(Duration.ZERO);
    LongTaskTimer active = registry.get("warden.held.active").longTaskTimer();
    assertThat(active.activeTasks()).isEqualTo(1);

    metrics.close();
    assertThat(active.activeTasks()).isZero();
    handle.close();
    warden.lock("after").acquire(Duration.ZERO).close();
    assertThat(registry.find("warden.held").timer()).isNull();
    assertThat(acquired("lock", "acquired")).isEqualTo(1);
    assertThatThrownBy(() -> metrics.bindTo(registry))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("these Warden metrics were closed");
    assertThatThrownBy(() -> WardenMetrics.of(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warden must not be null");
  }
}
