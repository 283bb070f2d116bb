package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.internal.base.Settings;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fair lock's direct grant under churn, through the API: threads of three clients take the lock
 * with short waits that often run out as a grant lands, with waits interrupted at random, and with
 * plain lock(). Whatever lands when: never two holders, every holder's token above every earlier
 * holder's, and once everybody stopped the lock is free for a newcomer within the grant lease and
 * the queue is empty (no grant or queue entry left behind by an acquisition that ended).
 */
@ExtendWith(WardenExtension.class)
class FairGrantChurnIT {
  private static final String NAME = "fairchurn";
  private static final String LOCK = "warden:{" + NAME + "}:fair";
  private static final long RUN_MILLIS = 5_000;

  @Test
  void waitsThatEndAsGrantsLandNeverLetTwoInNorLeaveTheLockTaken(
      RedisServer redis, WardenFactory wardens) throws Exception {
    churn(redis, wardens, false);
  }

  /**
   * The same while every client's subscription connection is cut again and again: grant messages
   * are lost (or never sent: nobody listens while a client reconnects), and the waiters' re-checks,
   * heartbeats and re-subscriptions take over.
   */
  @Test
  void andWhileGrantMessagesAreLostWithTheSubscriptionConnections(
      RedisServer redis, WardenFactory wardens) throws Exception {
    churn(redis, wardens, true);
  }

  private static void churn(RedisServer redis, WardenFactory wardens, boolean cutSubscriptions)
      throws Exception {
    List<Warden> clients = List.of(wardens.create(), wardens.create(), wardens.create());
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong(-1);
    ConcurrentLinkedQueue<String> wrongTokens = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> lostHolds = new ConcurrentLinkedQueue<>();
    AtomicInteger sections = new AtomicInteger();
    AtomicInteger gaveUp = new AtomicInteger();
    AtomicInteger interrupted = new AtomicInteger();
    AtomicInteger grants = new AtomicInteger();
    RedisClient raw = RedisClient.create(redis.uri());
    ExecutorService threads = Executors.newFixedThreadPool(6);
    ScheduledExecutorService interrupter = Executors.newSingleThreadScheduledExecutor();
    try (StatefulRedisPubSubConnection<String, String> watch = raw.connectPubSub()) {
      // a pattern subscription sees the grants without counting as a listener (PUBSUB NUMSUB)
      watch.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
              if (message.startsWith("granted ")) {
                grants.incrementAndGet();
              }
            }
          });
      watch.sync().psubscribe(LOCK + ":released:*");
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        DistributedLock lock = clients.get(t % 3).fairLock(NAME);
        SplittableRandom random = new SplittableRandom(t * 7919L + 17);
        running.add(
            threads.submit(
                () -> {
                  while (System.nanoTime() - end < 0) {
                    int roll = random.nextInt(10);
                    boolean held;
                    if (roll < 6) {
                      held = lock.tryLock(1 + random.nextInt(40), TimeUnit.MILLISECONDS);
                    } else if (roll < 8) {
                      held = lockInterruptedMaybe(lock, interrupter, random.nextInt(30));
                      if (!held) {
                        interrupted.incrementAndGet();
                      }
                    } else {
                      lock.lock();
                      held = true;
                    }
                    if (!held) {
                      gaveUp.incrementAndGet();
                      continue;
                    }
                    if (inside.getAndIncrement() != 0) {
                      overlaps.incrementAndGet();
                    }
                    try {
                      long token = lock.fencingToken();
                      long before = lastToken.getAndSet(token);
                      if (token <= before) {
                        wrongTokens.add(token + " after " + before);
                      }
                      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(500)));
                      sections.incrementAndGet();
                    } catch (IllegalMonitorStateException lost) {
                      lostHolds.add(lost.getMessage()); // no token: the hold is known lost
                    } finally {
                      inside.decrementAndGet();
                      try {
                        lock.unlock();
                      } catch (LeaseExpiredException lost) {
                        lostHolds.add(lost.getMessage());
                      }
                    }
                  }
                  return null;
                }));
      }
      AtomicInteger cuts = new AtomicInteger();
      RedisCommands<String, String> r = redis.redis();
      ScheduledFuture<?> cutting =
          interrupter.scheduleWithFixedDelay(
              () -> {
                if (cutSubscriptions && System.nanoTime() - end < 0) {
                  cuts.addAndGet((int) (long) r.clientKill(KillArgs.Builder.typePubsub()));
                }
              },
              150,
              300,
              TimeUnit.MILLISECONDS);
      for (Future<?> thread : running) {
        thread.get(RUN_MILLIS + 60_000, TimeUnit.MILLISECONDS);
      }
      cutting.cancel(false);

      assertThat(overlaps.get()).as("two holders at once").isZero();
      assertThat(wrongTokens).as("tokens that did not rise").isEmpty();
      // no fault ends a hold here (only subscription connections are cut): a hold lost is one that
      // a give-back or a grant took from its owner
      assertThat(lostHolds).as("holds lost without a fault").isEmpty();
      assertThat(sections.get()).isPositive();
      assertThat(gaveUp.get()).as("waits that ended without the lock").isPositive();
      assertThat(grants.get()).as("direct grants made").isPositive();
      assertThat(cuts.get() > 0).isEqualTo(cutSubscriptions);
      // what an ended acquisition was granted is given back, or ends with the grant lease
      Awaitility.await()
          .atMost(Duration.ofMillis(Settings.GRANT_LEASE_MILLIS + 2_000))
          .until(() -> redis.redis().exists(LOCK) == 0);
      Awaitility.await()
          .atMost(Duration.ofMillis(Settings.HEARTBEAT_TIMEOUT_MILLIS + 2_000))
          .until(() -> redis.redis().zcard(LOCK + ":queue") == 0);
      DistributedLock newcomer = wardens.create().fairLock(NAME);
      assertThat(newcomer.tryLock()).isTrue();
      assertThat(newcomer.fencingToken()).isGreaterThan(lastToken.get());
      newcomer.unlock();
      System.out.printf(
          "churn: %d sections, %d waits ended without the lock (%d interrupted), %d grants seen,"
              + " %d subscription connections cut%n",
          sections.get(), gaveUp.get(), interrupted.get(), grants.get(), cuts.get());
    } finally {
      threads.shutdownNow();
      interrupter.shutdownNow();
      raw.shutdown();
    }
  }

  /**
   * lockInterruptibly(), interrupted after {@code afterMillis} if it still waits then; returns
   * whether it took the lock. The thread's interrupt status is clear on return.
   */
  private static boolean lockInterruptedMaybe(
      DistributedLock lock, ScheduledExecutorService interrupter, long afterMillis) {
    Thread self = Thread.currentThread();
    Object guard = new Object();
    boolean[] armed = {true};
    var pending =
        interrupter.schedule(
            () -> {
              synchronized (guard) {
                if (armed[0]) {
                  self.interrupt();
                }
              }
            },
            afterMillis,
            TimeUnit.MILLISECONDS);
    try {
      lock.lockInterruptibly();
      return true;
    } catch (InterruptedException e) {
      return false;
    } finally {
      synchronized (guard) {
        armed[0] = false;
      }
      pending.cancel(false);
      boolean unused = Thread.interrupted(); // an interrupt that landed after the lock was taken
    }
  }
}
