package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hand-offs between threads of one client: a release with a thread of the same client waiting
 * hands the lock over in one script call, without starving other clients.
 */
@ExtendWith(WardenExtension.class)
class HandOffIT {

  @Test
  void aReleaseWithALocalWaiterHandsTheLockOverInOneScriptCall(RedisServer redis, Warden warden)
      throws Exception {
    DistributedLock lock = warden.lock("hand-off");
    lock.lock();
    long before = lock.fencingToken();
    redis.redis().configResetstat();
    CompletableFuture<Long> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              lock.lock();
              try {
                return lock.fencingToken();
              } finally {
                lock.unlock();
              }
            });
    // the waiter's two refused attempts (before and after its subscription): then it parks
    await().atMost(Duration.ofSeconds(5)).until(() -> redis.commandCalls().getOrDefault("evalsha", 0L) >= 2);
    redis.redis().configResetstat();
    lock.unlock();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(before);
    // the hand-over, then the waiter's own release; that release still publishes once, because
    // the lock remembers that somebody waited (it cannot tell whether another client still does)
    assertThat(redis.commandCalls().get("evalsha")).isEqualTo(2L);
    assertThat(redis.commandCalls().get("publish")).isEqualTo(1L);
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  void anotherClientsWaiterGetsInWhileThisClientsThreadsKeepHandingOver(WardenFactory wardens)
      throws Exception {
    Warden busy = wardens.create();
    AtomicBoolean stop = new AtomicBoolean();
    List<CompletableFuture<Integer>> locals = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      DistributedLock lock = busy.lock("shared-fairly");
      locals.add(
          CompletableFuture.supplyAsync(
              () -> {
                int rounds = 0;
                while (!stop.get()) {
                  lock.lock();
                  try {
                    rounds++;
                  } finally {
                    lock.unlock();
                  }
                }
                return rounds;
              }));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> busy.stats().subscriptions() == 1);
    DistributedLock outsider = wardens.create().lock("shared-fairly");
    boolean got;
    try {
      got = outsider.tryLock(10, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
    }
    assertThat(got).isTrue();
    outsider.unlock();
    for (CompletableFuture<Integer> local : locals) {
      assertThat(local.get(20, TimeUnit.SECONDS)).isPositive();
    }
  }
}
