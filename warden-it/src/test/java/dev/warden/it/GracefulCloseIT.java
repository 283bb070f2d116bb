package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Leadership;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.WardenListener;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Warden#close(Duration)}: holders may finish within the grace, waiters fail at once and
 * leave their queues, what is still held afterwards is released owner-checked and its holder told,
 * so another instance gets a lock right after the close instead of after a lease (30 s here).
 */
@ExtendWith(WardenExtension.class)
class GracefulCloseIT {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void anotherInstanceGetsTheLockAsSoonAsTheHolderReleasesWithinTheGrace(WardenFactory wardens)
      throws Exception {
    Warden closing = wardens.create(builder -> builder.watchdogTimeout(LEASE));
    Warden other = wardens.create();
    LockHandle job = closing.lock("job").acquire(Duration.ZERO);
    CompletableFuture<Boolean> next = tryLockAsync(other.lock("job"), Duration.ofSeconds(20));

    CompletableFuture<Void> close = CompletableFuture.runAsync(() -> closing.close(LEASE));
    Awaitility.await()
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> closing.lock("another").tryLock())
                    .as("no new acquisition while closing")
                    .isInstanceOf(WardenException.class)
                    .hasMessage(
                        "lock 'another': acquire failed: the Warden is closing and takes no new"
                            + " acquisitions"));
    assertThat(close).as("the close waits for the holder").isNotDone();
    long released = System.nanoTime();
    job.close(); // the holder finishes within the grace
    assertThat(next.get(5, TimeUnit.SECONDS)).isTrue();
    close.get(5, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - released))
        .as("handed over at the release, not after a lease")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(job.leaseLost()).as("a normal release is no loss").isNotDone();
  }

  @Test
  void aHolderStillHoldingAtTheEndOfTheGraceIsToldAndItsLockFreed(WardenFactory wardens)
      throws Exception {
    List<WardenListener.LossReason> heard = new CopyOnWriteArrayList<>();
    Warden closing =
        wardens.create(
            builder ->
                builder
                    .watchdogTimeout(LEASE)
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
    DistributedLock stuck = closing.lock("stuck");
    LockHandle handle = closing.lock("stuck-handle").acquire(Duration.ZERO);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    CompletableFuture<Throwable> holder =
        CompletableFuture.supplyAsync(
            () -> {
              stuck.lock();
              stuck.lock(); // held twice: released whole
              held.countDown();
              try {
                closed.await();
                stuck.unlock();
                return null;
              } catch (RuntimeException | InterruptedException e) {
                return e;
              }
            });
    assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

    long closeStarted = System.nanoTime();
    closing.close(Duration.ofMillis(300));
    Duration took = Duration.ofNanos(System.nanoTime() - closeStarted);
    assertThat(took).isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));
    assertThat(other.lock("stuck").tryLock()).as("freed by the close, not after a lease").isTrue();
    assertThat(other.lock("stuck-handle").tryLock()).isTrue();

    assertThat(handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
    assertThat(heard)
        .containsExactly(WardenListener.LossReason.SHUTDOWN, WardenListener.LossReason.SHUTDOWN);
    assertThatThrownBy(handle::close)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining(
            "the Warden's graceful close released it: its grace period (PT0.3S) ran out while it"
                + " was held");
    closed.countDown();
    assertThat(holder.get(5, TimeUnit.SECONDS))
        .as("the thread's unlock says why")
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("graceful close released it");
    assertThat(other.lock("stuck").isHeldByCurrentThread()).isTrue();
  }

  @Test
  void aLeaderStepsDownAndAnotherInstanceLeadsAtOnce(WardenFactory wardens) throws Exception {
    Warden closing = wardens.create(builder -> builder.watchdogTimeout(LEASE));
    Warden other = wardens.create(builder -> builder.watchdogTimeout(LEASE));
    CountDownLatch elected = new CountDownLatch(1);
    CompletableFuture<Leadership.Reason> revoked = new CompletableFuture<>();
    closing
        .leadership("scheduler")
        .onElected(term -> elected.countDown())
        .onRevoked((term, reason) -> revoked.complete(reason))
        .start();
    assertThat(elected.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Long> next = new CompletableFuture<>();
    other.leadership("scheduler").onElected(next::complete).start();

    long closeStarted = System.nanoTime();
    closing.close(LEASE);
    assertThat(revoked.get(5, TimeUnit.SECONDS)).isEqualTo(Leadership.Reason.STOPPED);
    assertThat(next.get(5, TimeUnit.SECONDS)).as("the next term").isPositive();
    assertThat(Duration.ofNanos(System.nanoTime() - closeStarted))
        .as("handed over, neither after the grace nor after a lease")
        .isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void waitersFailAtOnceLeavingTheirQueueAndReentriesStillWork(
      WardenFactory wardens, RedisServer redis) throws Exception {
    Warden closing = wardens.create(builder -> builder.watchdogTimeout(LEASE));
    Warden other = wardens.create();
    DistributedLock fairElsewhere = other.fairLock("queue");
    fairElsewhere.lock();
    CompletableFuture<Boolean> waiter =
        tryLockAsync(closing.fairLock("queue"), Duration.ofSeconds(30));
    Awaitility.await().until(() -> redis.redis().zcard("warden:{queue}:fair:queue") == 1);
    LockHandle mine = closing.lock("mine").acquire(Duration.ZERO);

    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch reentered = new CountDownLatch(1);
    DistributedLock reentrant = closing.lock("reentrant");
    CompletableFuture<Void> holder =
        CompletableFuture.runAsync(
            () -> {
              reentrant.lock();
              locked.countDown();
              try {
                Awaitility.await().until(() -> closingStarted(closing));
                reentrant.lock(); // a re-entry while closing: the holder finishes its work
                reentrant.unlock();
                reentered.countDown();
              } finally {
                reentrant.unlock();
              }
            });
    assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> close =
        CompletableFuture.runAsync(() -> closing.close(Duration.ofSeconds(20)));

    assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(WardenException.class)
        .hasMessageContaining("fair lock 'queue': acquire failed: the Warden is closing");
    Awaitility.await() // the leave was sent before the failure, on Warden's own connection
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(redis.redis().zcard("warden:{queue}:fair:queue"))
                    .as("the waiter left the fair queue")
                    .isZero());
    holder.get(10, TimeUnit.SECONDS);
    assertThat(reentered.getCount()).isZero();
    mine.close();
    close.get(10, TimeUnit.SECONDS);
    fairElsewhere.unlock();
  }

  @Test
  void aCloseNeverFreesALockItsInstanceNoLongerHolds(WardenFactory wardens) throws Exception {
    Warden closing = wardens.create(builder -> builder.watchdogTimeout(LEASE));
    Warden other = wardens.create();
    LockHandle lost = closing.lock("taken-over").acquire(Duration.ZERO);
    DistributedLock elsewhere = other.lock("taken-over");
    assertThat(elsewhere.forceUnlock()).isTrue(); // an operator freed it; the other took it
    elsewhere.lock();
    long token = elsewhere.fencingToken();

    closing.close(Duration.ZERO); // still believes it holds: its release must not free it

    assertThat(elsewhere.isHeldByCurrentThread()).isTrue();
    assertThat(other.inspect("taken-over").holders()).hasSize(1);
    assertThat(other.inspect("taken-over").currentToken()).isEqualTo(token);
    lost.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS); // told all the same
    elsewhere.unlock();
  }

  @Test
  void closingWithNothingHeldIsQuickAndASecondCloseReturnsAtOnce(WardenFactory wardens) {
    Warden closing = wardens.create();
    long started = System.nanoTime();
    closing.close(Duration.ofMinutes(5));
    closing.close(Duration.ofMinutes(5));
    closing.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThatThrownBy(() -> closing.lock("after").tryLock())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the Warden is closed");
    assertThatThrownBy(() -> closing.close(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grace");
  }

  /** Whether the instance refuses new acquisitions: its graceful close has begun. */
  private static boolean closingStarted(Warden warden) {
    try {
      DistributedLock probe = warden.lock("probe-" + System.nanoTime());
      if (probe.tryLock()) {
        probe.unlock();
      }
      return false;
    } catch (WardenException closing) {
      return true;
    }
  }

  private static CompletableFuture<Boolean> tryLockAsync(DistributedLock lock, Duration wait) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        });
  }
}
