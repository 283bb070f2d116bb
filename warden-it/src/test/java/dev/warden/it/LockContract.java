package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.Warden;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link DistributedLock} contract, run against every lock type: each subclass says how to make
 * a lock of a name. Mutual exclusion is checked as an invariant ({@link CriticalSection}), with the
 * threads of two clients released together by a {@link StartGate}; {@code -Dwarden.it.rounds=N}
 * runs more rounds than the default, for a soak run.
 */
@ExtendWith(WardenExtension.class)
abstract class LockContract {
  /** Warden instances contending in the invariant tests: each one is another owner. */
  private static final int CLIENTS = 2;

  private static final int THREADS_PER_CLIENT = 4;
  private static final int ROUNDS = Integer.getInteger("warden.it.rounds", 150);

  /** Returns the lock of that name, of the type under test. */
  abstract DistributedLock lockOf(Warden warden, String name);

  // ---- mutual exclusion, as an invariant ----

  @Test
  void threadsOfTwoClientsNeverOverlapLoseNoUpdateAndGetTokensRisingInHoldOrder(
      WardenFactory wardens) throws Exception {
    List<DistributedLock> locks = locksOfClients(wardens, "exclusive");
    CriticalSection section = new CriticalSection();
    StartGate.run(
        CLIENTS * THREADS_PER_CLIENT,
        ROUNDS,
        contender -> {
          DistributedLock lock = locks.get(contender % CLIENTS);
          lock.lock();
          try {
            section.enterWithToken(lock.fencingToken());
          } finally {
            lock.unlock();
          }
        });
    section.assertMutualExclusion(CLIENTS * THREADS_PER_CLIENT * ROUNDS);
    assertThat(locks.get(0).isLocked()).isFalse();
  }

  @Test
  void handlesOfTwoClientsNeverOverlapLoseNoUpdateAndGetTokensRisingInHoldOrder(
      WardenFactory wardens) throws Exception {
    List<DistributedLock> locks = locksOfClients(wardens, "exclusive-handles");
    CriticalSection section = new CriticalSection();
    StartGate.run(
        CLIENTS * THREADS_PER_CLIENT,
        ROUNDS,
        contender -> {
          try (LockHandle hold = locks.get(contender % CLIENTS).acquire(Duration.ofSeconds(60))) {
            section.enterWithToken(hold.fencingToken());
          }
        });
    section.assertMutualExclusion(CLIENTS * THREADS_PER_CLIENT * ROUNDS);
    assertThat(locks.get(0).isLocked()).isFalse();
  }

  private List<DistributedLock> locksOfClients(WardenFactory wardens, String name) {
    List<DistributedLock> locks = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      locks.add(lockOf(wardens.create(), name));
    }
    return locks;
  }

  // ---- holds, reentrancy and queries ----

  @Test
  void reentrantHoldsCountUpAndDownAndTheLastUnlockFreesTheLock(Warden warden) {
    DistributedLock lock = lockOf(warden, "reentrant");
    assertThat(lock.isLocked()).isFalse();
    assertThat(lock.getHoldCount()).isZero();

    lock.lock();
    lock.lock();
    assertThat(lock.getHoldCount()).isEqualTo(2);
    assertThat(lock.isHeldByCurrentThread()).isTrue();

    lock.unlock();
    assertThat(lock.getHoldCount()).isEqualTo(1);
    assertThat(lock.isLocked()).isTrue();

    lock.unlock();
    assertThat(lock.getHoldCount()).isZero();
    assertThat(lock.isLocked()).isFalse();
    assertThat(warden.stats().holds()).isZero();
  }

  @Test
  void otherThreadsSeeTheLockLockedButNotHeldByThem(Warden warden) throws Exception {
    DistributedLock lock = lockOf(warden, "seen");
    lock.lock();
    try {
      CompletableFuture<List<Object>> seen =
          CompletableFuture.supplyAsync(
              () -> List.of(lock.isLocked(), lock.isHeldByCurrentThread(), lock.getHoldCount()));
      assertThat(seen.get(10, TimeUnit.SECONDS)).containsExactly(true, false, 0);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void unlockByAnotherThreadThrowsNamingTheLockAndTheCallerAndKeepsTheLock(Warden warden)
      throws Exception {
    DistributedLock lock = lockOf(warden, "owned");
    lock.lock();
    try {
      CompletableFuture<Void> stranger =
          CompletableFuture.runAsync(
              () -> {
                Thread.currentThread().setName("stranger-thread");
                lock.unlock();
              });
      assertThatThrownBy(() -> stranger.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isExactlyInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("'owned'")
          .hasMessageContaining("stranger-thread");
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(lock.getHoldCount()).isEqualTo(1);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void theSameThreadThroughAnotherWardenIsAnotherOwner(WardenFactory wardens) {
    DistributedLock mine = lockOf(wardens.create(), "two-wardens");
    DistributedLock theirs = lockOf(wardens.create(), "two-wardens");
    mine.lock();
    try {
      assertThat(theirs.tryLock()).isFalse();
      assertThat(theirs.isHeldByCurrentThread()).isFalse();
      assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
      assertThat(mine.getHoldCount()).isEqualTo(1);
    } finally {
      mine.unlock();
    }
  }

  @Test
  void unlockWithoutAnyHoldThrows(Warden warden) {
    assertThatThrownBy(() -> lockOf(warden, "never").unlock())
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("'never'")
        .hasMessageContaining("is not held by thread");
  }

  @Test
  void forceUnlockFreesTheLockAndTheHolderLearnsAtUnlock(WardenFactory wardens) {
    DistributedLock holder = lockOf(wardens.create(), "forced");
    DistributedLock admin = lockOf(wardens.create(), "forced");
    holder.lock();
    assertThat(admin.forceUnlock()).isTrue();
    assertThat(admin.isLocked()).isFalse();
    assertThat(admin.forceUnlock()).isFalse();
    assertThatThrownBy(holder::unlock)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("'forced'");
    // the lost hold was given back by that unlock: the thread starts clean
    assertThatThrownBy(holder::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(holder.tryLock()).isTrue();
    holder.unlock();
  }

  @Test
  void remainTimeToLiveIsMinusTwoWhenFreeAndWithinTheLeaseWhenHeld(Warden warden) {
    DistributedLock lock = lockOf(warden, "ttl");
    assertThat(lock.remainTimeToLive()).isEqualTo(-2);
    lock.lock(10, TimeUnit.SECONDS);
    try {
      assertThat(lock.remainTimeToLive()).isBetween(8_000L, 10_000L);
    } finally {
      lock.unlock();
    }
    lock.lock();
    try {
      assertThat(lock.remainTimeToLive()).isBetween(20_000L, 30_000L); // watchdog default 30 s
    } finally {
      lock.unlock();
    }
  }

  @Test
  void forceUnlockByTheHoldingThreadItselfSimplyEndsItsHold(Warden warden) {
    DistributedLock lock = lockOf(warden, "self-forced");
    lock.lock();
    assertThat(lock.forceUnlock()).isTrue();
    assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  @Test
  void aThreadWhoseExplicitLeaseRanOutMayLockAgainWithoutUnlocking(Warden warden) throws Exception {
    DistributedLock throttle = lockOf(warden, "throttle");
    throttle.lock(150, TimeUnit.MILLISECONDS); // taken as a throttle: never unlocked
    long first = throttle.fencingToken();
    await().atMost(Duration.ofSeconds(5)).until(() -> !throttle.isLocked());
    assertThat(throttle.tryLock(5, 5, TimeUnit.SECONDS)).isTrue();
    assertThat(throttle.getHoldCount()).isEqualTo(1);
    assertThat(throttle.fencingToken()).isGreaterThan(first);
    throttle.unlock();
    assertThat(throttle.isLocked()).isFalse();
  }

  @Test
  void reenteringAHoldThatWasLostThrowsAndTheOuterUnlockSaysSoToo(WardenFactory wardens) {
    DistributedLock lock = lockOf(wardens.create(), "lost-reentry");
    lock.lock();
    lockOf(wardens.create(), "lost-reentry").forceUnlock();
    assertThatThrownBy(lock::lock).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(lock.isLocked()).as("the failed re-entry left nothing behind").isFalse();
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
  }

  // ---- waiting ----

  @Test
  void tryLockReturnsFalseAfterWaitingAboutAsLongAsAsked(WardenFactory wardens) throws Exception {
    DistributedLock holder = lockOf(wardens.create(), "busy");
    DistributedLock waiter = lockOf(wardens.create(), "busy");
    holder.lock();
    try {
      long start = System.nanoTime();
      assertThat(waiter.tryLock(400, TimeUnit.MILLISECONDS)).isFalse();
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMillis).isBetween(390L, 2_000L);
      // The timed wait's leave (fair lock, write lock) and any attempt still on its way when its
      // deadline fired were sent, without waiting, on the waiter's connection before tryLock
      // returned: a call answered on that connection comes after them, so none is counted below.
      assertThat(waiter.isLocked()).isTrue();

      Map<String, Long> before = wardens.commandCalls();
      assertThat(waiter.tryLock()).isFalse();
      assertThat(waiter.tryLock(0, 5, TimeUnit.SECONDS)).isFalse();
      assertThat(waiter.tryLock(-5, TimeUnit.SECONDS)).isFalse(); // Lock: a wait <= 0 does not wait
      Map<String, Long> after = wardens.commandCalls();
      assertThat(callsBetween(before, after, "evalsha"))
          .as("one attempt each, one script call")
          .isEqualTo(3);
      assertThat(
              callsBetween(before, after, "subscribe") + callsBetween(before, after, "ssubscribe"))
          .as("a zero wait subscribes to nothing: it does not wait")
          .isZero();
    } finally {
      holder.unlock();
    }
  }

  @Test
  void aWaiterGetsTheLockSoonAfterItIsReleased(WardenFactory wardens) throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = lockOf(wardens.create(), "handover");
    DistributedLock waiter = lockOf(waiterWarden, "handover");
    holder.lock();
    CompletableFuture<Boolean> got =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                boolean acquired = waiter.tryLock(20, TimeUnit.SECONDS);
                if (acquired) {
                  waiter.unlock();
                }
                return acquired;
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);
    assertThat(got).isNotDone();
    holder.unlock();
    assertThat(got.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void lockInterruptiblyThrowsWhenInterruptedAndLeavesNothingHeld(WardenFactory wardens)
      throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = lockOf(wardens.create(), "interrupt");
    DistributedLock waiter = lockOf(waiterWarden, "interrupt");
    holder.lock();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                waiter.lockInterruptibly();
                outcome.set(new AssertionError("acquired"));
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    thread.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);
    thread.interrupt();
    thread.join(10_000);
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    holder.unlock();
    assertThat(waiterWarden.stats().holds()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 0);
    assertThat(holder.isLocked()).isFalse();
  }

  @Test
  void lockKeepsWaitingThroughAnInterruptAndRestoresTheFlag(WardenFactory wardens)
      throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = lockOf(wardens.create(), "uninterruptible");
    DistributedLock waiter = lockOf(waiterWarden, "uninterruptible");
    holder.lock();
    CompletableFuture<Boolean> flagAfterLock = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              waiter.lock();
              flagAfterLock.complete(Thread.currentThread().isInterrupted());
              waiter.unlock();
            });
    thread.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);
    thread.interrupt();
    assertThat(flagAfterLock).isNotDone();
    holder.unlock();
    assertThat(flagAfterLock.get(10, TimeUnit.SECONDS)).isTrue();
    thread.join(10_000);
  }

  // ---- leases ----

  @Test
  void anExplicitLeaseExpiresLetsAnotherOwnerInAndTheStaleUnlockFails(WardenFactory wardens)
      throws Exception {
    DistributedLock first = lockOf(wardens.create(), "lease");
    DistributedLock second = lockOf(wardens.create(), "lease");
    first.lock(300, TimeUnit.MILLISECONDS);
    long firstToken = first.fencingToken();
    assertThat(second.tryLock(10, 10, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(second.fencingToken()).isGreaterThan(firstToken);
      assertThatThrownBy(first::unlock)
          .isInstanceOf(LeaseExpiredException.class)
          .hasMessageContaining("'lease'");
      assertThat(second.isHeldByCurrentThread()).isTrue();
    } finally {
      second.unlock();
    }
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 800)
  void aClosedWardensLockExpiresWithItsLease(WardenFactory wardens) throws Exception {
    Warden leaving = wardens.create();
    DistributedLock abandoned = lockOf(leaving, "abandoned");
    DistributedLock other = lockOf(wardens.create(), "abandoned");
    abandoned.lock();
    leaving.close();
    assertThat(other.isLocked()).isTrue();
    long start = System.nanoTime();
    assertThat(other.tryLock(5, TimeUnit.SECONDS)).isTrue();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000L);
    other.unlock();
  }

  // ---- fencing ----

  @Test
  void fencingTokensRiseAcrossOwnersReleasesExpiriesAndForceUnlocks(WardenFactory wardens)
      throws Exception {
    DistributedLock a = lockOf(wardens.create(), "fenced");
    DistributedLock b = lockOf(wardens.create(), "fenced");
    List<Long> tokens = new ArrayList<>();

    a.lock();
    tokens.add(a.fencingToken());
    a.lock();
    assertThat(a.fencingToken())
        .as("a reentrant hold keeps the outer token")
        .isEqualTo(tokens.get(0));
    a.unlock();
    a.unlock();

    b.lock();
    tokens.add(b.fencingToken());
    b.forceUnlock();

    // long enough to read its token on a loaded machine (200 ms was not)
    a.lock(1, TimeUnit.SECONDS);
    tokens.add(a.fencingToken());
    assertThat(b.tryLock(10, 10, TimeUnit.SECONDS)).isTrue(); // after a's lease expired
    tokens.add(b.fencingToken());
    b.unlock();
    assertThatThrownBy(a::unlock).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(b::fencingToken).isInstanceOf(IllegalMonitorStateException.class);

    assertThat(tokens).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void fencingTokenThrowsOnceTheHoldExpired(Warden warden) {
    DistributedLock lock = lockOf(warden, "fence-expired");
    assertThatThrownBy(lock::fencingToken)
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("'fence-expired'");
    lock.lock(200, TimeUnit.MILLISECONDS);
    long token = lock.fencingToken();
    assertThat(token).isPositive();
    await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
    assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
  }

  // ---- handles ----

  @Test
  void aHandleIsUsableAndClosableFromAnotherThread(WardenFactory wardens) throws Exception {
    Warden warden = wardens.create();
    DistributedLock lock = lockOf(warden, "handle");
    LockHandle handle = lock.acquire(Duration.ofSeconds(5));
    assertThat(handle.isHeld()).isTrue();
    assertThat(lock.isHeldByCurrentThread()).as("a handle's hold is not the thread's").isFalse();
    assertThat(lock.tryLock()).as("nor may the thread re-enter it").isFalse();
    long token = handle.fencingToken();
    CompletableFuture.runAsync(handle::close).get(10, TimeUnit.SECONDS);
    assertThat(handle.isHeld()).isFalse();
    handle.close(); // twice: a no-op
    assertThat(lock.isLocked()).isFalse();
    try (LockHandle next = lock.acquire(Duration.ZERO)) {
      assertThat(next.fencingToken()).isGreaterThan(token);
    }
    assertThat(warden.stats().holds()).isZero();
  }

  @Test
  void acquireThrowsLockTimeoutAndTryAcquireReturnsEmptyWhenHeldElsewhere(WardenFactory wardens)
      throws Exception {
    DistributedLock holder = lockOf(wardens.create(), "handle-busy");
    DistributedLock other = lockOf(wardens.create(), "handle-busy");
    try (LockHandle held = holder.acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> other.acquire(Duration.ofMillis(200)))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("'handle-busy'");
      assertThat(other.tryAcquire(Duration.ofMillis(100))).isEmpty();
      CompletableFuture<LockHandle> late = other.acquireAsync(Duration.ofMillis(200));
      assertThatThrownBy(() -> late.get(10, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(LockTimeoutException.class);
      assertThat(held.isHeld()).isTrue();
    }
  }

  @Test
  void acquireAsyncCompletesOffTheIoThreadsOnceTheLockIsReleased(WardenFactory wardens)
      throws Exception {
    DistributedLock holder = lockOf(wardens.create(), "async");
    DistributedLock other = lockOf(wardens.create(), "async");
    holder.lock();
    CompletableFuture<String> chain =
        other
            .acquireAsync(Duration.ofSeconds(20))
            .thenApply(
                handle -> {
                  String thread = Thread.currentThread().getName();
                  handle.close();
                  return thread;
                });
    assertThat(chain).isNotDone();
    holder.unlock();
    assertThat(chain.get(10, TimeUnit.SECONDS))
        .doesNotContain("lettuce")
        .doesNotContain("nioEventLoop");
    assertThat(holder.isLocked()).isFalse();
  }

  @Test
  void cancellingAcquireAsyncAbandonsTheAttemptAndHoldsNothing(WardenFactory wardens)
      throws Exception {
    Warden waiterWarden = wardens.create();
    DistributedLock holder = lockOf(wardens.create(), "cancelled");
    DistributedLock other = lockOf(waiterWarden, "cancelled");
    holder.lock();
    CompletableFuture<LockHandle> pending = other.acquireAsync(Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 1);
    assertThat(pending.cancel(true)).isTrue();
    assertThatThrownBy(pending::join).isInstanceOf(CancellationException.class);
    holder.unlock();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().acquisitions() == 0);
    assertThat(holder.isLocked()).isFalse();
    assertThat(waiterWarden.stats().holds()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> waiterWarden.stats().subscriptions() == 0);
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600) // the keeper learns of the loss at its next tick
  void leaseLostCompletesWhenTheLockIsForceUnlockedAndCloseThenThrows(WardenFactory wardens)
      throws Exception {
    DistributedLock lock = lockOf(wardens.create(), "lost");
    LockHandle handle = lock.acquire(Duration.ZERO);
    CompletableFuture<Void> lost = handle.leaseLost().toCompletableFuture();
    assertThat(lost).isNotDone();
    lockOf(wardens.create(), "lost").forceUnlock();
    lost.get(10, TimeUnit.SECONDS);
    assertThat(handle.isHeld()).isFalse();
    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    handle.close(); // reported once; then a no-op
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600)
  void leaseLostIsSignalledByTheLeaseKeeperWhenTheKeyVanishes(WardenFactory wardens)
      throws Exception {
    DistributedLock lock = lockOf(wardens.create(), "vanished");
    LockHandle handle = lock.acquire(Duration.ZERO);
    wardens.flushAll(); // as after a failover to a replica that never saw the lock
    handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  void tryAcquireWithAnAlreadyInterruptedThreadThrows(Warden warden) {
    DistributedLock lock = lockOf(warden, "pre-interrupted");
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag is consumed by the exception").isFalse();
    assertThat(lock.isLocked()).isFalse();
  }

  /** Returns how often {@code command} ran between two {@link WardenFactory#commandCalls()}. */
  private static long callsBetween(
      Map<String, Long> before, Map<String, Long> after, String command) {
    return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
  }
}
