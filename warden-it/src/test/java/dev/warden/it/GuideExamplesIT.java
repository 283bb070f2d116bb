package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The examples of the README and the guides (getting started, locks and synchronizers), run as the
 * documents show them: warden-docs's DocSnippetsTest checks that each document's block is the text
 * of its region here.
 */
@ExtendWith(WardenExtension.class)
class GuideExamplesIT {
  private final List<String> did = new CopyOnWriteArrayList<>();
  private final String invoice = "invoice-42";
  private final String record = "record-7";
  private final String video = "video-3";
  private final int shards = 1; // one worker here, so that the latch opens at its countDown()
  private final Store store = new Store();

  /** A resource that takes a write with the fencing token of the hold it was made under. */
  private final class Store {
    void write(String what, long token) {
      did.add("write " + what + " " + token);
    }
  }

  private void charge(String what, long token) {
    did.add("charge " + what + " " + token);
  }

  private void work() {
    did.add("work");
  }

  private void abortWork() {
    did.add("abort");
  }

  private void encode(String what) {
    did.add("encode " + what);
  }

  private void runExport() {
    did.add("export");
  }

  @Test
  void theFirstLockChargesOnceWithItsToken(RedisServer redis) {
    String redisUri = redis.uri();
    // example first-lock: begin
    try (Warden warden = Warden.connect(redisUri)) { // e.g. "redis://localhost:6379"
      DistributedLock lock = warden.lock("invoice-42");
      lock.lock(); // waits; the lease is renewed until unlock()
      try {
        charge(invoice, lock.fencingToken()); // the token lets the resource refuse a stale holder
      } finally {
        lock.unlock();
      }
    }
    // example first-lock: end
    assertThat(did).hasSize(1);
    assertThat(did.get(0)).startsWith("charge invoice-42 ");
    try (Warden other = Warden.connect(redisUri)) {
      assertThat(other.lock("invoice-42").isLocked()).isFalse();
    }
  }

  @Test
  void theThreeWaysToHoldALockRunInTurnWithRisingTokens(RedisServer redis) throws Exception {
    String redisUri = redis.uri();
    // example using-it: begin
    try (Warden warden = Warden.connect(redisUri)) {
      DistributedLock lock = warden.lock("invoice-42");

      lock.lock(); // waits; lease renewed by the watchdog until unlock
      try {
        charge(invoice, lock.fencingToken());
      } finally {
        lock.unlock();
      }

      if (lock.tryLock(2, 30, TimeUnit.SECONDS)) { // wait at most 2 s; fixed 30 s lease
        try {
          work();
        } finally {
          lock.unlock();
        }
      }

      try (LockHandle hold = lock.acquire(Duration.ofSeconds(5))) { // owned by the handle
        hold.leaseLost().thenRun(() -> abortWork()); // told if the lease is lost
        store.write(record, hold.fencingToken());
      }
    }
    // example using-it: end
    assertThat(did).hasSize(3);
    long charged = Long.parseLong(did.get(0).substring("charge invoice-42 ".length()));
    assertThat(did.get(1)).isEqualTo("work");
    long written = Long.parseLong(did.get(2).substring("write record-7 ".length()));
    assertThat(written).isGreaterThan(charged);
  }

  @Test
  void theSemaphoreExampleTakesAndGivesBackTwoPermits(Warden warden) throws Exception {
    // example semaphore: begin
    DistributedSemaphore slots = warden.semaphore("encoder-slots");
    slots.trySetPermits(4); // sets the count only if it was never set
    slots.acquire(2); // waits until 2 permits are free
    try {
      encode(video);
    } finally {
      slots.release(2);
    }
    // example semaphore: end
    assertThat(did).containsExactly("encode video-3");
    assertThat(slots.availablePermits()).isEqualTo(4);
  }

  @Test
  void theLeasedSemaphoreExampleReleasesItsPermit(Warden warden) throws Exception {
    // example leased-semaphore: begin
    LeasedSemaphore exports = warden.leasedSemaphore("export-slots");
    exports.trySetPermits(3);
    String permit = exports.tryAcquire(5, 60, TimeUnit.SECONDS); // wait 5 s; lease 60 s
    if (permit != null) {
      try {
        runExport();
      } finally {
        exports.tryRelease(permit);
      }
    }
    // example leased-semaphore: end
    assertThat(did).containsExactly("export");
    assertThat(exports.availablePermits()).isEqualTo(3);
  }

  @Test
  void theLatchExampleOpensOnceEveryShardCountedDown(Warden warden) throws Exception {
    // example latch: begin
    DistributedCountDownLatch loaded = warden.countDownLatch("nightly-load");
    loaded.trySetCount(shards); // only when never set, or back at zero
    loaded.countDown(); // by each worker, in any process
    loaded.await(10, TimeUnit.MINUTES); // anywhere
    // example latch: end
    assertThat(loaded.getCount()).isZero();
  }
}
