package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The handle's non-blocking forms ({@link LockHandle#closeAsync()}, {@link
 * LockHandle#extendAsync(Duration)}, {@link LockHandle#closeAfterAsync(Duration)}, {@link
 * LockHandle#isHeldAsync()}) and {@link DistributedLock#acquireAsync(Duration, Duration)}, against
 * a real redis-server: the same outcomes and exceptions as the blocking forms, futures completed
 * off the Redis I/O threads, and no thread blocked while Redis does not answer.
 */
@ExtendWith(WardenExtension.class)
class AsyncHandleIT {
  private static final String KEY = "warden:{job}:lock";
  private static final Duration BOUND = Duration.ofSeconds(10);

  private static <T> T get(CompletableFuture<T> future) throws Exception {
    return future.get(BOUND.toSeconds(), TimeUnit.SECONDS);
  }

  /** Asserts that the future fails with the given exception type, unwrapped. */
  private static void assertFailsWith(CompletableFuture<?> future, Class<?> type) {
    assertThatThrownBy(() -> get(future))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(type);
  }

  @Test
  void closeAsyncReleasesTheLockInRedisAndCompletesOffTheIoThreads(RedisServer redis, Warden warden)
      throws Exception {
    LockHandle hold = warden.lock("job").acquire(Duration.ZERO);
    assertThat(redis.redis().exists(KEY)).isEqualTo(1L);

    String thread = get(hold.closeAsync().thenApply(done -> Thread.currentThread().getName()));

    assertThat(redis.redis().exists(KEY)).isZero();
    assertThat(thread).doesNotStartWith("lettuce-").doesNotStartWith("warden-timer");
    assertThat(warden.stats().renewedHolds()).isZero();
    // a second close, blocking or not, is a no-op; nothing is reported lost
    get(hold.closeAsync());
    hold.close();
    assertThat(hold.leaseLost().toCompletableFuture().isDone()).isFalse();
  }

  @Test
  void closeAsyncOfAnExpiredHoldFailsWithLeaseExpiredOnceAndLeavesTheNextOwnerAlone(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock mine = wardens.create().lock("job");
    DistributedLock theirs = wardens.create().lock("job");
    LockHandle late = mine.tryAcquire(Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
    await().atMost(BOUND).until(() -> !mine.isLocked());
    LockHandle taker = theirs.acquire(Duration.ZERO);

    assertFailsWith(late.closeAsync(), LeaseExpiredException.class);

    assertThat(taker.isHeld()).isTrue();
    assertThat(redis.redis().exists(KEY)).isEqualTo(1L);
    get(late.closeAsync()); // reported once: a no-op now
    late.close();
    taker.close();
  }

  @Test
  void extendAsyncSetsTheLeaseOfALiveHoldAndAnswersFalseOnceItIsGone(
      RedisServer redis, Warden warden) throws Exception {
    LockHandle hold = warden.lock("job").acquire(Duration.ZERO);

    assertThat(get(hold.extendAsync(Duration.ofSeconds(60)))).isTrue();
    assertThat(redis.redis().pttl(KEY)).isBetween(50_000L, 60_000L);
    assertThat(warden.stats().renewedHolds()).isZero();

    assertThat(get(hold.extendAsync(Duration.ofMillis(100)))).isTrue();
    await().atMost(BOUND).until(() -> redis.redis().exists(KEY) == 0);
    assertThat(get(hold.extendAsync(Duration.ofSeconds(60)))).isFalse();
    assertThat(redis.redis().exists(KEY)).isZero();
    get(hold.leaseLost().toCompletableFuture());
    assertThat(get(hold.isHeldAsync())).isFalse();
  }

  @Test
  void badArgumentsAreRefusedAtOnceNamingTheArgument(Warden warden) throws Exception {
    DistributedLock lock = warden.lock("job");
    LockHandle hold = lock.acquire(Duration.ZERO);
    assertThatThrownBy(() -> hold.extendAsync(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime")
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> hold.closeAfterAsync(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepFor");
    assertThatThrownBy(() -> lock.acquireAsync(Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
    assertThatThrownBy(() -> lock.acquireAsync(Duration.ofMillis(-5), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("waitTime");
    hold.close();
  }

  @Test
  void closeAfterAsyncKeepsTheLockForTheTimeAndEndsTheHandle(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock lock = wardens.create().lock("job");
    DistributedLock other = wardens.create().lock("job");
    LockHandle hold = lock.acquire(Duration.ZERO);

    get(hold.closeAfterAsync(Duration.ofMillis(800)));

    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 800L);
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(get(hold.extendAsync(Duration.ofSeconds(5)))).isFalse();
    await().atMost(BOUND).until(() -> !lock.isLocked());
    get(hold.closeAsync());
    assertThat(hold.leaseLost().toCompletableFuture().isDone()).isFalse();
  }

  @Test
  void theAsyncFormsWorkOnFairWriteAndReadLocksToo(RedisServer redis, Warden warden)
      throws Exception {
    List<Function<Warden, DistributedLock>> types =
        List.of(
            w -> w.fairLock("fair"),
            w -> w.readWriteLock("rw-write").writeLock(),
            w -> w.readWriteLock("rw-read").readLock());
    for (Function<Warden, DistributedLock> type : types) {
      DistributedLock lock = type.apply(warden);
      LockHandle hold = get(lock.acquireAsync(Duration.ZERO, Duration.ofSeconds(20)));
      assertThat(get(hold.isHeldAsync())).as(lock.toString()).isTrue();
      assertThat(get(hold.extendAsync(Duration.ofSeconds(40)))).as(lock.toString()).isTrue();
      get(hold.closeAsync());
      assertThat(lock.isLocked()).as(lock.toString()).isFalse();
    }
  }

  @Test
  void acquireAsyncWithALeaseTakesAFixedLeaseThatIsNotRenewed(RedisServer redis, Warden warden)
      throws Exception {
    DistributedLock lock = warden.lock("job");

    LockHandle hold = get(lock.acquireAsync(Duration.ZERO, Duration.ofMillis(400)));

    assertThat(warden.stats().renewedHolds()).isZero();
    assertThat(redis.redis().pttl(KEY)).isBetween(1L, 400L);
    await().atMost(BOUND).until(() -> !lock.isLocked());
    assertFailsWith(hold.closeAsync(), LeaseExpiredException.class);
  }

  @Test
  void acquireAsyncWithALeaseTimesOutWithLockTimeoutException(WardenFactory wardens)
      throws Exception {
    LockHandle theirs = wardens.create().lock("job").acquire(Duration.ZERO);
    DistributedLock mine = wardens.create().lock("job");

    assertFailsWith(
        mine.acquireAsync(Duration.ofMillis(100), Duration.ofSeconds(5)),
        LockTimeoutException.class);
    theirs.close();
    get(mine.acquireAsync(Duration.ofSeconds(5), Duration.ofSeconds(5))).close();
  }

  @Test
  void theHandlesOperationsRunOneAfterAnotherInTheOrderCalled(RedisServer redis, Warden warden)
      throws Exception {
    LockHandle hold = warden.lock("job").acquire(Duration.ZERO);

    CompletableFuture<Boolean> extended = hold.extendAsync(Duration.ofSeconds(60));
    CompletableFuture<Void> closed = hold.closeAsync();
    CompletableFuture<Boolean> late = hold.extendAsync(Duration.ofSeconds(60));

    assertThat(get(extended)).isTrue();
    get(closed);
    assertThat(get(late)).isFalse(); // closed before it ran: nothing sent, nothing lost
    assertThat(redis.redis().exists(KEY)).isZero();
    assertThat(hold.leaseLost().toCompletableFuture().isDone()).isFalse();
  }

  @Test
  void closeAsyncBlocksNoThreadWhileRedisIsSilentAndCompletesWhenItAnswers(RedisServer redis)
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis);
        Warden warden =
            Warden.builder().uri(proxy.uri()).commandTimeout(Duration.ofSeconds(5)).build()) {
      LockHandle hold = warden.lock("job").acquire(Duration.ZERO);
      proxy.blackhole();

      long before = System.nanoTime();
      CompletableFuture<Void> closing = hold.closeAsync();
      // returned at once, with the call on its way: no reply, no verdict yet
      assertThat(System.nanoTime() - before).isLessThan(TimeUnit.SECONDS.toNanos(1));
      assertThat(closing).isNotDone();
      assertThat(redis.redis().exists(KEY)).isEqualTo(1L);

      proxy.heal();
      get(closing);
      assertThat(redis.redis().exists(KEY)).isZero();
    }
  }

  @Test
  void closeAsyncFailsWithWardenExceptionNamingTheLockWhenRedisStaysSilentAndMayBeCalledAgain(
      RedisServer redis) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis);
        Warden warden =
            Warden.builder().uri(proxy.uri()).commandTimeout(Duration.ofMillis(300)).build()) {
      LockHandle hold = warden.lock("job").acquire(Duration.ZERO);
      proxy.refuse();
      proxy.cut();

      assertThatThrownBy(() -> get(hold.closeAsync()))
          .cause()
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("lock 'job'");

      proxy.heal();
      await()
          .atMost(BOUND)
          .untilAsserted(
              () -> {
                get(hold.closeAsync());
                assertThat(redis.redis().exists(KEY)).isZero();
              });
    }
  }

  /** A store with an asynchronous write, for the example of docs/reactive-and-kotlin.md. */
  static final class Store {
    final List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();

    CompletableFuture<Void> writeAsync(String record, long fencingToken) {
      tokens.add(fencingToken);
      return CompletableFuture.completedFuture(null);
    }
  }

  @Test
  void theReadmeExampleRunsAsShown(RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("job");
    Store store = new Store();
    String record = "r1";
    // example async-handle: begin
    CompletableFuture<Void> written =
        lock.acquireAsync(Duration.ofSeconds(5)) // LockTimeoutException after 5 s
            .thenCompose(
                hold ->
                    store
                        .writeAsync(record, hold.fencingToken())
                        .handle((done, failure) -> failure) // success or failure: release
                        .thenCompose(
                            failure ->
                                hold.closeAsync() // never blocks a thread
                                    .thenRun(
                                        () -> {
                                          if (failure != null) { // the write's own failure
                                            throw new CompletionException(failure);
                                          }
                                        })));
    // example async-handle: end
    get(written);
    assertThat(store.tokens).hasSize(1);
    assertThat(redis.redis().exists(KEY)).isZero();
    DocExamples.assertShown(
        Path.of("../docs/reactive-and-kotlin.md"),
        "async-handle",
        java.nio.file.Path.of("src/test/java/dev/warden/it/AsyncHandleIT.java"));
  }
}
