package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code synchronizerIdleExpiry}: semaphores and latches that nobody uses expire from Redis; every
 * operation, and each look of a waiter, keeps them alive; what an expired one answers.
 */
@ExtendWith(WardenExtension.class)
class SyncIdleExpiryIT {
  private static final Duration IDLE = Duration.ofSeconds(2); // short, with room for a slow machine
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1); // the expiry allows 1 s
  private static final Path SOURCE = Path.of("src/test/java/dev/warden/it/SyncIdleExpiryIT.java");

  @Test
  void anIdleSemaphoreExpiresAndIsThenAsIfNeverSet(RedisServer redis) throws Exception {
    String redisUri = redis.uri();
    // example sync-idle-expiry: begin
    Warden warden =
        Warden.builder()
            .uri(redisUri)
            .synchronizerIdleExpiry(Duration.ofMinutes(10)) // gone 10 minutes after last use
            .build();
    // example sync-idle-expiry: end
    warden.close();
    DocExamples.assertShown(Path.of("../docs/operations.md"), "sync-idle-expiry", SOURCE);

    try (Warden idle =
        Warden.builder()
            .uri(redisUri)
            .synchronizerIdleExpiry(IDLE)
            .commandTimeout(COMMAND_TIMEOUT)
            .build()) {
      DistributedSemaphore slots = idle.semaphore("slots");
      assertThat(slots.trySetPermits(3)).isTrue();
      assertThat(redis.redis().pttl("warden:{slots}:semaphore")).isBetween(1L, 2000L);
      assertThat(slots.tryAcquire()).isTrue();
      slots.release();
      assertThat(redis.redis().pttl("warden:{slots}:semaphore")).isBetween(1L, 2000L);
      assertThat(slots.drainPermits()).isEqualTo(3);
      assertThat(redis.redis().pttl("warden:{slots}:semaphore"))
          .as("drain sets the key again, keeping the expiry")
          .isBetween(1L, 2000L);

      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().exists("warden:{slots}:semaphore") == 0);
      assertThat(slots.availablePermits()).isZero();
      assertThat(slots.trySetPermits(2)).as("set again, as a new semaphore").isTrue();
      assertThat(slots.availablePermits()).isEqualTo(2);
    }
  }

  @Test
  void aWaitingAcquirerKeepsItsSemaphoreAlive(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden idle =
        wardens.create(
            builder -> builder.synchronizerIdleExpiry(IDLE).commandTimeout(COMMAND_TIMEOUT));
    DistributedSemaphore slots = idle.semaphore("busy");
    assertThat(slots.trySetPermits(0)).isTrue();
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return slots.tryAcquire(1, 20, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    await().until(() -> redis.redis().zcard("warden:{busy}:semaphore:queue") == 1);
    await()
        .during(IDLE.multipliedBy(3))
        .atMost(IDLE.multipliedBy(4))
        .until(() -> redis.redis().exists("warden:{busy}:semaphore") == 1);
    wardens.create().semaphore("busy").release();
    assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anAwaitedLatchStaysAndAnIdleOneExpiresOpen(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden idle =
        wardens.create(
            builder -> builder.synchronizerIdleExpiry(IDLE).commandTimeout(COMMAND_TIMEOUT));
    DistributedCountDownLatch done = idle.countDownLatch("done");
    assertThat(done.trySetCount(2)).isTrue();
    assertThat(redis.redis().pttl("warden:{done}:latch")).isBetween(1L, 2000L);
    CompletableFuture<Boolean> awaiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return done.await(3, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
              }
            });
    await()
        .during(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> redis.redis().exists("warden:{done}:latch") == 1);
    assertThat(awaiter.get(5, TimeUnit.SECONDS)).as("still counting: the wait ran out").isFalse();
    done.countDown();
    assertThat(done.getCount()).isEqualTo(1);
    assertThat(redis.redis().pttl("warden:{done}:latch")).isBetween(1L, 2000L);

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().exists("warden:{done}:latch") == 0);
    assertThat(done.getCount()).as("an expired latch reads as open").isZero();
    assertThat(done.await(0, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anAwaiterOfALatchFrozenPastTheExpiryFailsInsteadOfPassingIt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    // the awaiter's looks cannot keep the latch alive while the server is frozen: they fail for a
    // command timeout first (at most half the expiry), so the awaiter fails before it could find
    // the latch expired, and so open, though nobody counted it down
    Warden idle =
        wardens.create(
            builder -> builder.synchronizerIdleExpiry(IDLE).commandTimeout(COMMAND_TIMEOUT));
    DistributedCountDownLatch gate = idle.countDownLatch("gate");
    assertThat(gate.trySetCount(2)).isTrue();
    CompletableFuture<Boolean> awaiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return gate.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    await().until(() -> redis.redis().hexists("warden:{gate}:latch", "#w"));
    redis.pause(IDLE.plusSeconds(1));

    assertThat(awaiter)
        .failsWithin(Duration.ofSeconds(20))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(WardenException.class)
        .withMessageContaining("count-down latch 'gate': await failed");
    // once the server resumes (by itself, after the expiry), the latch has expired: open
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> gate.getCount() == 0 && redis.redis().exists("warden:{gate}:latch") == 0);
  }

  @Test
  void aLeasedSemaphoreLivesUntilItsLastLeaseEndsPlusTheExpiry(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Duration idle = Duration.ofSeconds(3); // longer: this test's steps must each fit in it
    Warden warden =
        wardens.create(
            builder -> builder.synchronizerIdleExpiry(idle).commandTimeout(COMMAND_TIMEOUT));
    LeasedSemaphore exports = warden.leasedSemaphore("exports");
    assertThat(exports.trySetPermits(2)).isTrue();
    assertThat(redis.redis().pttl("warden:{exports}:leased-semaphore")).isBetween(1L, 3000L);
    String permit = exports.tryAcquire(1, 10, TimeUnit.SECONDS);
    assertThat(permit).isNotNull();
    assertThat(redis.redis().pttl("warden:{exports}:leased-semaphore"))
        .as("the lease's end plus the expiry")
        .isBetween(10_000L, 13_000L);
    assertThat(redis.redis().pttl("warden:{exports}:leased-semaphore:leases"))
        .isBetween(10_000L, 13_000L);
    assertThat(exports.updateLeaseTime(permit, 20, TimeUnit.SECONDS)).isTrue();
    assertThat(redis.redis().pttl("warden:{exports}:leased-semaphore")).isBetween(20_000L, 23_000L);
    exports.release(permit);
    assertThat(redis.redis().pttl("warden:{exports}:leased-semaphore")).isBetween(1L, 3000L);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().exists("warden:{exports}:leased-semaphore") == 0);
    assertThat(exports.availablePermits()).isZero();
    assertThat(exports.trySetPermits(1)).as("set again, as a new semaphore").isTrue();
  }

  @Test
  void aGrantGivenBackAfterItsSemaphoreExpiredLeavesASemaphoreThatExpires(RedisServer redis) {
    // a waiter's attempt took 2 permits, its reply was lost, and its client stayed away past the
    // expiry (shorter than the attempt's marker's life): the semaphore expired; the acquisition's
    // leave then gives the grant back
    RedisCommands<String, String> r = redis.redis();
    String permits = "warden:{gone}:semaphore";
    String marker = "warden:{gone}:semaphore:op:w1";
    assertThat(semaphoreUpdate(r, "set", 2, "", "warden:{gone}:semaphore:op:s1"))
        .containsExactly(1L, 2L, 2L);
    assertThat(semaphoreUpdate(r, "wait", 2, "2:w1", marker)).containsExactly(1L, 2L, 0L);
    r.pexpire(permits, 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> r.exists(permits) == 0);

    assertThat(semaphoreUpdate(r, "leave", 0, "2:w1", marker)).containsExactly(1L, 2L, 2L);
    assertThat(r.pttl(permits))
        .as("the given-back permits live the idle expiry, as any other change's")
        .isBetween(1L, IDLE.toMillis());
  }

  private static List<Object> semaphoreUpdate(
      RedisCommands<String, String> redis, String op, long permits, String entry, String marker) {
    return LuaScripts.run(
        redis,
        "semaphore-update",
        new String[] {
          "warden:{gone}:semaphore",
          "warden:{gone}:semaphore:queue",
          "warden:{gone}:semaphore:deadlines",
          marker
        },
        op,
        Long.toString(permits),
        entry,
        "2000",
        "10000",
        "warden:{gone}:semaphore:released",
        Long.toString(IDLE.toMillis()));
  }

  @Test
  void withoutTheOptionNothingExpires(RedisServer redis, WardenFactory wardens) {
    Warden warden = wardens.create();
    assertThat(warden.semaphore("kept").trySetPermits(1)).isTrue();
    assertThat(warden.countDownLatch("kept").trySetCount(1)).isTrue();
    assertThat(warden.leasedSemaphore("kept").trySetPermits(1)).isTrue();
    assertThat(redis.redis().pttl("warden:{kept}:leased-semaphore")).isEqualTo(-1);
    assertThat(redis.redis().pttl("warden:{kept}:semaphore")).isEqualTo(-1);
    assertThat(redis.redis().pttl("warden:{kept}:latch")).isEqualTo(-1);
  }

  @Test
  void tooShortAnExpiryIsRefusedNamingIt(RedisServer redis) {
    assertThatThrownBy(() -> Warden.builder().synchronizerIdleExpiry(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idleExpiry")
        .hasMessageContaining("PT0.5S");
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .uri(redis.uri())
                    .recheckInterval(Duration.ofMillis(500))
                    .synchronizerIdleExpiry(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "idleExpiry must be at least four recheck intervals (PT2S), so that a waiter's looks"
                + " keep its semaphore or latch alive: PT1S");
  }
}
