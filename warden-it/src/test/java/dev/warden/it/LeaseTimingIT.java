package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lease keeper in real time, once per deployment (here one server; {@code ClusterLeaseTimingIT}
 * and {@code SentinelLeaseTimingIT}): a watched lock stays held over many lease periods (one of
 * each type at once, each renewed by its own script), and a released hold is never called lost. The
 * keeper's schedule is tested in virtual time ({@code LeaseKeeperTest}); these waits (about 4 s)
 * ran in each of the 12 lock contract suites before.
 */
@ExtendWith(WardenExtension.class)
class LeaseTimingIT {

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600)
  void theWatchdogKeepsALockOfEveryTypeAliveOverManyLeasePeriods(WardenFactory wardens) {
    Warden holding = wardens.create();
    Warden other = wardens.create();
    List<BiFunction<Warden, String, DistributedLock>> types =
        List.of(
            Warden::lock,
            Warden::fairLock,
            (warden, name) -> warden.readWriteLock(name).readLock(),
            (warden, name) -> warden.readWriteLock(name).writeLock());
    List<DistributedLock> held = new ArrayList<>();
    for (int type = 0; type < types.size(); type++) {
      held.add(types.get(type).apply(holding, "watched-" + type));
    }
    // the other client's contenders: a writer is refused by a reader's hold too
    List<DistributedLock> refused =
        List.of(
            other.lock("watched-0"),
            other.fairLock("watched-1"),
            other.readWriteLock("watched-2").writeLock(),
            other.readWriteLock("watched-3").writeLock());
    held.forEach(DistributedLock::lock);
    try {
      // five lease periods: every lock must stay held and keep a fresh TTL all along
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  held.stream().allMatch(lock -> lock.remainTimeToLive() > 0)
                      && refused.stream().noneMatch(DistributedLock::tryLock));
      held.forEach(lock -> assertThat(lock.getHoldCount()).isEqualTo(1));
    } finally {
      held.forEach(DistributedLock::unlock);
    }
    held.forEach(lock -> assertThat(lock.isLocked()).isFalse());
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600)
  void leaseLostNeverCompletesAfterANormalClose(Warden warden) {
    DistributedLock lock = warden.lock("closed-normally");
    LockHandle handle;
    try {
      handle = lock.acquire(Duration.ZERO);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
    CompletableFuture<Void> lost = handle.leaseLost().toCompletableFuture();
    handle.close();
    // two lease periods after the close: the keeper must not call a released hold lost
    await()
        .during(Duration.ofMillis(1_200))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !lost.isDone());
    assertThat(warden.stats().renewedHolds()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> !warden.stats().leaseKeeperRunning());
  }
}
