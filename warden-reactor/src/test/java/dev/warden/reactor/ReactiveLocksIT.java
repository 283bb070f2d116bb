package dev.warden.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.Warden;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@link ReactiveLocks} against a real redis-server: mutual exclusion with an exact counter,
 * release on completion, error and cancellation, nothing held in Redis after a cancelled
 * acquisition, and thousands of acquisitions on four non-blocking threads without a blocking call
 * (BlockHound, installed for this class: a blocking call on such a thread fails it).
 */
@ExtendWith(WardenExtension.class)
class ReactiveLocksIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  /** Who holds the lock now, as Redis has it. */
  private static boolean heldInRedis(Warden observer, String name) {
    return !observer.inspect(name).holders().isEmpty();
  }

  @Test
  void blockHoundIsWatchingTheNonBlockingThreads() {
    assertThatThrownBy(
            () ->
                Mono.fromCallable(
                        () -> {
                          // a wait that parks the thread: what BlockHound must catch there
                          return new CountDownLatch(1).await(1, TimeUnit.MILLISECONDS);
                        })
                    .subscribeOn(Schedulers.parallel())
                    .block(BOUND))
        .hasCauseInstanceOf(BlockingOperationError.class);
  }

  /**
   * Lettuce locks a {@link ReentrantLock} around each command it writes; two non-blocking threads
   * writing to one connection at once make one wait for it, briefly. {@code
   * WardenBlockHoundIntegration} (found by {@code BlockHound.install()}) allows that wait. Without
   * it BlockHound throws from the wait, and on JDK 17 the lock then never wakes its next waiter:
   * the connection stops writing for good. That hung this class in CI; the 20,000 scopes below hang
   * within seconds without it (Lettuce's lock, and the same for Warden's timer queue).
   */
  @Test
  void aNonBlockingThreadMayWaitForLettucesLockAroundACommandWrite() throws Exception {
    Class<?> type = Class.forName("io.lettuce.core.protocol.SharedLock");
    Constructor<?> create = type.getDeclaredConstructor();
    create.setAccessible(true);
    Object writes = create.newInstance();
    Field field = type.getDeclaredField("lock");
    field.setAccessible(true);
    ReentrantLock lock = (ReentrantLock) field.get(writes);
    Method write = type.getDeclaredMethod("incrementWriters");
    write.setAccessible(true);

    lock.lock(); // another writer is inside, for as long as this test says
    CompletableFuture<String> written;
    try {
      written =
          Mono.fromCallable(
                  () -> {
                    write.invoke(writes);
                    return "written";
                  })
              .subscribeOn(Schedulers.parallel())
              .toFuture();
      await().atMost(BOUND).until(lock::hasQueuedThreads); // the loop thread waits for it
    } finally {
      lock.unlock();
    }
    assertThat(written.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("written");
    assertThat(lock.tryLock()).as("the lock is usable afterwards").isTrue();
    lock.unlock();
  }

  @Test
  void withLockKeepsAnExactCounterUnderContentionFromTwoClients(WardenFactory wardens) {
    List<DistributedLock> locks =
        List.of(wardens.create().lock("counter"), wardens.create().lock("counter"));
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    long[] counter = {0};
    AtomicLong lastToken = new AtomicLong(-1);
    AtomicInteger tokensOutOfOrder = new AtomicInteger();

    Flux.range(0, 200)
        .flatMap(
            i ->
                ReactiveLocks.withLock(
                    locks.get(i % 2),
                    BOUND,
                    hold -> {
                      mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      if (hold.fencingToken() <= lastToken.getAndSet(hold.fencingToken())) {
                        tokensOutOfOrder.incrementAndGet();
                      }
                      long read = counter[0];
                      return Mono.delay(Duration.ofMillis(1))
                          .map(
                              tick -> {
                                counter[0] = read + 1;
                                inside.decrementAndGet();
                                return counter[0];
                              });
                    }),
            64)
        .blockLast(BOUND);

    assertThat(counter[0]).isEqualTo(200);
    assertThat(mostInside.get()).isEqualTo(1);
    assertThat(tokensOutOfOrder.get()).isZero();
  }

  @Test
  void withLockReleasesWhenTheWorkFails(Warden warden) {
    DistributedLock lock = warden.lock("job");

    Mono<String> failing =
        ReactiveLocks.withLock(
            lock, Duration.ZERO, hold -> Mono.error(new IllegalStateException("boom")));

    assertThatThrownBy(() -> failing.block(BOUND)).hasMessage("boom");
    assertThat(heldInRedis(warden, "job")).isFalse();
  }

  @Test
  void withLockReleasesWhenTheWorkIsCancelled(Warden warden) {
    DistributedLock lock = warden.lock("job");
    Disposable running =
        ReactiveLocks.withLockMany(lock, Duration.ZERO, hold -> Flux.never()).subscribe();
    await().atMost(BOUND).until(() -> heldInRedis(warden, "job"));

    running.dispose();

    await().atMost(BOUND).until(() -> !heldInRedis(warden, "job"));
  }

  @Test
  void withLockManyHoldsTheLockForEveryValue(Warden warden) {
    DistributedLock lock = warden.lock("job");
    List<Boolean> held =
        ReactiveLocks.withLockMany(
                lock,
                Duration.ZERO,
                hold -> Flux.range(0, 3).flatMap(i -> Mono.fromFuture(hold.isHeldAsync())))
            .collectList()
            .block(BOUND);
    assertThat(held).containsExactly(true, true, true);
    assertThat(heldInRedis(warden, "job")).isFalse();
  }

  @Test
  void cancellingAWaitingAcquisitionLeavesNothingHeldInRedis(
      WardenFactory wardens, RedisServer redis) throws Exception {
    Warden observer = wardens.create();
    LockHandle theirs = wardens.create().lock("job").acquire(Duration.ZERO);
    DistributedLock mine = wardens.create().lock("job");
    AtomicInteger granted = new AtomicInteger();

    Disposable waiting =
        ReactiveLocks.acquire(mine, BOUND).doOnNext(hold -> granted.incrementAndGet()).subscribe();
    await().atMost(BOUND).until(() -> observer.inspect("job").waitingClients() == 1);
    waiting.dispose();
    theirs.close();

    await().atMost(BOUND).until(() -> !heldInRedis(observer, "job"));
    assertThat(granted.get()).isZero();
  }

  @Test
  void aGrantRacingACancellationIsGivenBackEveryTime(WardenFactory wardens) throws Exception {
    Warden observer = wardens.create();
    DistributedLock theirs = wardens.create().lock("job");
    DistributedLock mine = wardens.create().lock("job");
    for (int round = 0; round < 50; round++) {
      LockHandle held = theirs.acquire(BOUND);
      Disposable waiting =
          ReactiveLocks.acquire(mine, BOUND)
              .flatMap(ReactiveLocks::release) // granted before the cancel: released here
              .subscribe();
      // the release grants the waiter while the subscriber cancels: whoever wins, nothing stays
      ReactiveLocks.release(held).subscribe();
      waiting.dispose();
      await().atMost(BOUND).until(() -> !heldInRedis(observer, "job"));
    }
  }

  @Test
  void anAcquisitionThatWaitsTooLongFailsWithLockTimeoutException(WardenFactory wardens)
      throws Exception {
    LockHandle theirs = wardens.create().lock("job").acquire(Duration.ZERO);
    DistributedLock mine = wardens.create().lock("job");

    assertThatThrownBy(() -> ReactiveLocks.acquire(mine, Duration.ofMillis(100)).block(BOUND))
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining("job");
    theirs.close();
  }

  @Test
  void aFixedLeaseAcquisitionIsNotRenewedAndAReleaseAfterItRanOutSaysSo(Warden warden) {
    DistributedLock lock = warden.lock("job");

    LockHandle hold = ReactiveLocks.acquire(lock, Duration.ZERO, Duration.ofMillis(200)).block();

    assertThat(warden.stats().renewedHolds()).isZero();
    await().atMost(BOUND).until(() -> !heldInRedis(warden, "job"));
    assertThatThrownBy(() -> ReactiveLocks.release(hold).block(BOUND))
        .isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  void badArgumentsAreRefusedNamingTheArgument(Warden warden) {
    DistributedLock lock = warden.lock("job");
    assertThatThrownBy(() -> ReactiveLocks.acquire(null, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock");
    assertThatThrownBy(() -> ReactiveLocks.acquire(lock, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("waitTime must not be negative: PT-1S");
    assertThatThrownBy(() -> ReactiveLocks.acquire(lock, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime must be positive: PT0S");
    assertThatThrownBy(() -> ReactiveLocks.withLock(lock, Duration.ZERO, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("work");
    assertThatThrownBy(() -> ReactiveLocks.release(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hold");
  }

  @Test
  void thousandsOfAcquisitionsOnFourNonBlockingThreadsNeverBlockThem(WardenFactory wardens) {
    Scheduler loops = Schedulers.newParallel("event-loop", 4);
    try {
      List<Warden> clients = List.of(wardens.create(), wardens.create());
      // A Warden's first lock reads the lock scripts from the jar (class initialisation, once per
      // JVM): blocking I/O that BlockHound rightly flags on a loop thread. Done here, before.
      clients.get(0).lock("warm-up");
      int acquisitions = 20_000;
      AtomicInteger done = new AtomicInteger();
      int[] counters = new int[20];

      Flux.range(0, acquisitions)
          .parallel(4)
          .runOn(loops)
          .flatMap(
              i -> {
                int name = i % counters.length;
                DistributedLock lock = clients.get(i % 2).lock("many-" + name);
                return ReactiveLocks.withLock(
                        lock,
                        BOUND,
                        hold ->
                            Mono.fromCallable(
                                    () -> {
                                      counters[name]++; // on a loop thread, under the lock
                                      return done.incrementAndGet();
                                    })
                                .subscribeOn(loops))
                    .publishOn(loops);
              },
              false,
              500)
          .sequential()
          .blockLast(Duration.ofMinutes(2));

      assertThat(done.get()).isEqualTo(acquisitions);
      int sum = 0;
      for (int counter : counters) {
        sum += counter;
      }
      assertThat(sum).isEqualTo(acquisitions);
    } finally {
      loops.dispose();
    }
  }

  @Test
  void theReadmeExampleRunsAsShown(Warden warden) {
    String id = "42";
    Payments payments = new Payments();
    // example reactor: begin
    Mono<Receipt> charged =
        ReactiveLocks.withLock(
            warden.lock("invoice-" + id),
            Duration.ofSeconds(5), // wait at most; then LockTimeoutException
            hold -> payments.charge(id, hold.fencingToken())); // released when it ends
    // example reactor: end
    Receipt receipt = charged.block(BOUND);
    assertThat(receipt.invoice()).isEqualTo("42");
    assertThat(receipt.token()).isPositive();
    assertThat(heldInRedis(warden, "invoice-42")).isFalse();
    DocExamples.assertShown(
        Path.of("../docs/reactive-and-kotlin.md"),
        "reactor",
        Path.of("src/test/java/dev/warden/reactor/ReactiveLocksIT.java"));
  }

  record Receipt(String invoice, long token) {}

  static final class Payments {
    Mono<Receipt> charge(String invoice, long token) {
      return Mono.just(new Receipt(invoice, token));
    }
  }
}
