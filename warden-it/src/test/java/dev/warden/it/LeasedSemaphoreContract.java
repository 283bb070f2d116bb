package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link LeasedSemaphore} contract, run on every deployment: one server ({@code
 * LeasedSemaphoreContractIT}), a Sentinel-managed master and a Redis Cluster (the {@code
 * Sentinel...} and {@code Cluster...} subclasses). Tests that need the single server itself (its
 * data, a kill, a child JVM) stay in {@code LeasedSemaphoreIT}.
 */
@ExtendWith(WardenExtension.class)
abstract class LeasedSemaphoreContract {
  /** Runs the blocking callers of each test; the common pool is too small for them on 2 cores. */
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  // ---- permits and ids ----

  @Test
  void trySetPermitsSetsThemOnlyOnce(Warden warden) {
    LeasedSemaphore semaphore = warden.leasedSemaphore("set-once");
    assertThat(semaphore.availablePermits()).isZero();
    assertThat(semaphore.tryAcquire()).as("never set: no permits").isNull();
    assertThat(semaphore.trySetPermits(2)).isTrue();
    assertThat(semaphore.trySetPermits(4)).isFalse();
    assertThat(semaphore.availablePermits()).isEqualTo(2);
    semaphore.addPermits(1);
    semaphore.addPermits(-2);
    assertThat(semaphore.availablePermits()).isOne();
  }

  @Test
  void eachPermitHasAnUnguessableIdAndReleasingItFreesIt(Warden warden) throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("ids");
    semaphore.trySetPermits(3);
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ids.add(semaphore.acquire(10, TimeUnit.SECONDS));
    }
    assertThat(ids).hasSize(3).allMatch(id -> id.matches("[0-9a-f]{32}"));
    assertThat(semaphore.tryAcquire()).isNull();
    assertThat(semaphore.tryAcquire(0, 10, TimeUnit.SECONDS)).isNull();
    assertThat(semaphore.availablePermits()).isZero();
    String first = ids.iterator().next();
    semaphore.release(first);
    assertThat(semaphore.availablePermits()).isOne();
    assertThat(semaphore.tryRelease(first)).as("released already").isFalse();
    assertThatThrownBy(() -> semaphore.release(first))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "permitId is not a leased permit of leased semaphore 'ids' (never issued, released"
                + " already, or its lease ran out): '"
                + first
                + "'");
    assertThat(semaphore.tryRelease("0123456789abcdef0123456789abcdef")).isFalse();
    assertThat(semaphore.availablePermits()).isOne();
  }

  // ---- leases ----

  @Test
  void aPermitWhoseLeaseEndedIsFreeAgainAndCanNoLongerBeReleasedOrExtended(Warden warden)
      throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("expiring");
    semaphore.trySetPermits(1);
    String id = semaphore.acquire(200, TimeUnit.MILLISECONDS);
    assertThat(semaphore.availablePermits()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> semaphore.availablePermits() == 1);
    assertThat(semaphore.updateLeaseTime(id, 10, TimeUnit.SECONDS)).isFalse();
    assertThat(semaphore.tryRelease(id)).isFalse();
    assertThatThrownBy(() -> semaphore.release(id))
        .isExactlyInstanceOf(IllegalArgumentException.class);
    assertThat(semaphore.availablePermits()).as("returned once, not once per call").isOne();
    assertThat(semaphore.tryAcquire()).isNotNull();
    assertThat(semaphore.availablePermits()).isZero();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aPermitWhoseHolderNeverReleasesItReachesAWaiterWhenItsLeaseEnds(WardenFactory wardens)
      throws Exception {
    // with a one-minute re-check and no release message, only the lease's end can wake it
    LeasedSemaphore holder = wardens.create().leasedSemaphore("abandoned");
    Warden waiterWarden = wardens.create();
    holder.trySetPermits(1);
    holder.acquire(1, TimeUnit.SECONDS);
    long start = System.nanoTime();
    CompletableFuture<String> waiter =
        Blocking.supply(
            () -> waiterWarden.leasedSemaphore("abandoned").acquire(30, TimeUnit.SECONDS), threads);
    assertThat(waiter.get(15, TimeUnit.SECONDS)).isNotNull();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(500L, 10_000L);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aReleaseWakesAWaiterOfAnotherWarden(WardenFactory wardens) throws Exception {
    LeasedSemaphore holder = wardens.create().leasedSemaphore("woken");
    Warden waiterWarden = wardens.create();
    holder.trySetPermits(1);
    String id = holder.acquire(60, TimeUnit.SECONDS);
    CompletableFuture<String> waiter =
        Blocking.supply(
            () -> waiterWarden.leasedSemaphore("woken").acquire(30, TimeUnit.SECONDS), threads);
    await().atMost(Duration.ofSeconds(10)).until(() -> waiterWarden.stats().subscriptions() == 1);
    holder.release(id);
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isNotNull().isNotEqualTo(id);
    await().atMost(Duration.ofSeconds(10)).until(() -> waiterWarden.stats().subscriptions() == 0);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void setPermitsWakeWaitersOfANeverSetSemaphore(WardenFactory wardens) throws Exception {
    Warden waiterWarden = wardens.create();
    List<CompletableFuture<String>> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      LeasedSemaphore semaphore = waiterWarden.leasedSemaphore("unset");
      waiters.add(Blocking.supply(() -> semaphore.acquire(30, TimeUnit.SECONDS), threads));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> waiterWarden.stats().acquisitions() == 2);
    wardens.create().leasedSemaphore("unset").trySetPermits(2);
    for (CompletableFuture<String> waiter : waiters) {
      assertThat(waiter.get(10, TimeUnit.SECONDS)).isNotNull();
    }
  }

  // ---- mutual exclusion and interrupts ----

  @Test
  void oneLeasedPermitExcludesThreadsOfSeveralWardens(WardenFactory wardens) throws Exception {
    List<LeasedSemaphore> semaphores = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      semaphores.add(wardens.create().leasedSemaphore("mutex"));
    }
    semaphores.get(0).trySetPermits(1);
    CriticalSection section = new CriticalSection();
    StartGate.run(
        6,
        50,
        thread -> {
          LeasedSemaphore semaphore = semaphores.get(thread % 3);
          String id = semaphore.acquire(60, TimeUnit.SECONDS);
          try {
            section.enter(1);
          } finally {
            semaphore.release(id);
          }
        });
    assertThat(section.counter()).isEqualTo(6 * 50);
    assertThat(section.maxInside()).isOne();
    assertThat(semaphores.get(0).availablePermits()).isOne();
  }

  @Test
  void anInterruptedWaiterHoldsNoPermit(Warden warden) throws Exception {
    LeasedSemaphore semaphore = warden.leasedSemaphore("interrupted");
    semaphore.trySetPermits(1);
    String held = semaphore.acquire(60, TimeUnit.SECONDS);
    Waiters.interruptOnceWaiting(
        () -> semaphore.acquire(60, TimeUnit.SECONDS), () -> warden.stats().subscriptions() == 1);
    semaphore.release(held);
    assertThat(semaphore.availablePermits()).isOne();
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().subscriptions() == 0);
    assertThat(warden.stats().acquisitions()).isZero();
  }
}
