package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenListener;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A hold the lease keeper declares lost by its lease deadline is ended in Redis by its token (the
 * drop): nothing its owner does around that loss may leave the owner believing it holds a lock the
 * drop ended. The holder reaches Redis through a {@link FaultProxy}, whose replies are held back
 * while its requests still run.
 */
@ExtendWith(WardenExtension.class)
class LostHoldDropIT {

  /**
   * A re-entry sent before the loss runs in Redis before the drop (same hold, same token, count 2),
   * and its reply arrives after the loss: the drop then ended the hold the re-entry went into, so
   * the re-entry must not return as if its owner held the lock.
   */
  @Test
  @WardenOptions(watchdogTimeoutMillis = 3_000, commandTimeoutMillis = 15_000)
  void aReentryAnsweredAfterTheHoldWasLostByItsDeadlineDoesNotReturnHeld(
      RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "late-reentry";
    AtomicInteger renewals = new AtomicInteger();
    CompletableFuture<Void> lost = new CompletableFuture<>();
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try (FaultProxy proxy = FaultProxy.start(redis)) {
      Warden holderWarden =
          wardens.create(
              builder ->
                  builder
                      .uri(proxy.uri())
                      .listener(
                          new WardenListener() {
                            @Override
                            public void leaseRenewed(ObjectType t, String n) {
                              renewals.incrementAndGet();
                            }

                            @Override
                            public void leaseLost(ObjectType t, String n) {
                              lost.complete(null);
                            }
                          }));
      Warden other = wardens.create();
      DistributedLock lock = holderWarden.lock(name);
      holderThread.submit((Runnable) lock::lock).get(10, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> renewals.get() >= 1);

      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> reentry = holderThread.submit((Runnable) lock::lock);
      // the re-entry ran in Redis (count 2), its reply held back
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> redis.redis().hvals("warden:{" + name + "}:lock").contains("2"));
      lost.get(10, TimeUnit.SECONDS);
      proxy.heal();

      Throwable failure = null;
      try {
        reentry.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
      String key = "warden:{" + name + "}:lock";
      System.out.printf(
          "after the re-entry: %s, pttl %d%n", redis.redis().hgetall(key), redis.redis().pttl(key));
      // the drop (sent at the loss, answered after the heal) ends the hold well before its lease
      boolean otherGotIn = other.lock(name).tryLock(1, TimeUnit.SECONDS);
      System.out.printf(
          "re-entry after the loss: %s; another owner got in: %s%n", failure, otherGotIn);
      // either the re-entry failed (its hold was lost), or the owner really holds the lock
      assertThat(failure == null && otherGotIn)
          .as("the re-entry returned as held while another owner took the lock")
          .isFalse();
      assertThat(failure).isInstanceOf(LeaseExpiredException.class);
    } finally {
      holderThread.shutdownNow();
    }
  }
}
