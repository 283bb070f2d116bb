package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Sentinel failover that loses a held lock (asynchronous replication: the promoted replica never
 * got the acquisition, {@link RedisSentinels#loseNextWrites()}): the holder is told at once, not at
 * its next renewal, and the next holder's fencing token ranks above the lost one.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelLostLockIT {
  private static final String KEY = "warden:{lost}:lock";

  @Test
  // a 30 s watchdog renews every 10 s: only the re-check after the failover can report in time
  @WardenOptions(watchdogTimeoutMillis = 30_000)
  void aLockTheFailoverLostIsReportedAtOnceAndTheNextHolderRanksAboveIt(
      RedisSentinels set, WardenFactory wardens) throws Exception {
    Warden holderWarden = wardens.create();
    Warden otherWarden = wardens.create();
    DistributedLock lock = holderWarden.lock("lost");
    LockHandle replicated = lock.acquire(Duration.ZERO); // its fence reaches the replicas
    long tokenBefore = replicated.fencingToken();
    replicated.close();
    assertThat(set.master().redis().waitForReplication(2, 5_000)).isEqualTo(2);

    try (SwitchWatch watch = new SwitchWatch(set)) {
      set.loseNextWrites();
      LockHandle held = lock.acquire(Duration.ZERO);
      long lostToken = held.fencingToken();
      CompletableFuture<Long> lostAt = new CompletableFuture<>();
      held.leaseLost().thenRun(() -> lostAt.complete(System.nanoTime()));
      assertThat(set.master().redis().exists(KEY)).isOne();

      RedisServer promoted = set.failover();
      long lost = lostAt.get(10, TimeUnit.SECONDS);
      assertThat(promoted.redis().exists(KEY)).as("the failover lost the lock").isZero();
      long afterSelected = TimeUnit.NANOSECONDS.toMillis(lost - watch.selectedAt());
      long afterSwitch = watch.millisAfterSwitch(lost);
      System.out.printf(
          "Sentinel failover lost a lock: leaseLost() completed %d ms after +selected-slave, %d ms"
              + " after +switch-master%n",
          afterSelected, afterSwitch);
      assertThat(afterSelected).isLessThan(3_000);
      assertThat(afterSwitch).isLessThan(3_000);
      assertThatThrownBy(held::close).isInstanceOf(LeaseExpiredException.class);

      LockHandle next = otherWarden.lock("lost").acquire(Duration.ofSeconds(5));
      assertThat(next.fencingToken()).isGreaterThan(lostToken).isGreaterThan(tokenBefore);
      next.close();
    }
  }
}
