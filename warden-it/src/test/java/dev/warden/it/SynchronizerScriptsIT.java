package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The semaphore, leased-semaphore and latch scripts on their own, called directly with EVAL: what
 * each returns, leaves in Redis and publishes, including the replays that retries can cause.
 */
@ExtendWith(WardenExtension.class)
class SynchronizerScriptsIT {
  /** The scripts' idle expiry argument: none (the builder's default). */
  private static final String NO_IDLE_EXPIRY = "0";

  private static final String PERMITS = "warden:{s}:semaphore";
  private static final String QUEUE = "warden:{s}:semaphore:queue";
  private static final String DEADLINES = "warden:{s}:semaphore:deadlines";
  private static final String CHANNEL = "warden:{s}:semaphore:released";
  private static final String LEASED = "warden:{s}:leased-semaphore";
  private static final String LEASES = "warden:{s}:leased-semaphore:leases";
  private static final String LATCH = "warden:{s}:latch";
  private static final String LATCH_CHANNEL = "warden:{s}:latch:released";
  private static final long ENTRY_LEASE = 2_000;

  private RedisCommands<String, String> redis;
  private RedisClient client;
  private StatefulRedisPubSubConnection<String, String> subscriber;
  private final BlockingQueue<String> published = new LinkedBlockingQueue<>();

  @BeforeEach
  void connect(RedisServer server) {
    redis = server.redis();
    client = RedisClient.create(server.uri());
    subscriber = client.connectPubSub();
    subscriber.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(String channel, String message) {
            published.add(channel.substring(channel.indexOf('}') + 2) + " " + message);
          }
        });
    subscriber.sync().subscribe(CHANNEL, LATCH_CHANNEL, "warden:{s}:leased-semaphore:released");
  }

  @AfterEach
  void disconnect() {
    subscriber.close();
    client.shutdown();
  }

  // ---- semaphore-update ----

  private List<Object> update(String op, long permits, String entry, String marker) {
    return LuaScripts.run(
        redis,
        "semaphore-update",
        new String[] {PERMITS, QUEUE, DEADLINES, "warden:{s}:semaphore:op:" + marker},
        op,
        Long.toString(permits),
        entry,
        Long.toString(ENTRY_LEASE),
        "10000",
        CHANNEL,
        NO_IDLE_EXPIRY);
  }

  @Test
  void aTakeLeavesAMarkerSoThatItsReplayTakesNothingMore() {
    update("set", 3, "", "s1");
    assertThat(update("take", 2, "2:a", "a")).containsExactly(1L, 2L, 1L);
    assertThat(update("take", 2, "2:a", "a")).as("replayed").containsExactly(1L, 2L, 1L);
    assertThat(redis.get(PERMITS)).isEqualTo("1");
    assertThat(redis.pttl("warden:{s}:semaphore:op:a")).isBetween(1L, 10_000L);
  }

  @Test
  void replayedAddsSetsAndDrainsChangeNothing() {
    assertThat(update("set", 3, "", "s1")).containsExactly(1L, 3L, 3L);
    assertThat(update("set", 3, "", "s1")).as("replayed").containsExactly(1L, 3L, 3L);
    assertThat(update("set", 5, "", "s2")).as("set already").containsExactly(0L, 3L);
    assertThat(update("add", 2, "", "r1")).containsExactly(1L, 2L, 5L);
    assertThat(update("add", 2, "", "r1")).as("replayed").containsExactly(1L, 2L, 5L);
    assertThat(update("drain", 0, "", "d1")).containsExactly(1L, 5L, 0L);
    update("add", 1, "", "r2");
    assertThat(update("drain", 0, "", "d1")).as("replayed").containsExactly(1L, 5L, 1L);
    assertThat(redis.get(PERMITS)).isEqualTo("1");
    assertThat(update("add", Integer.MAX_VALUE, "", "r3")).containsExactly(-1L, 1L);
  }

  @Test
  void aWaitThatCannotTakeQueuesItsEntryAndLaterWaitsOnlyRefreshItsDeadline() {
    update("set", 1, "", "s1");
    assertThat(update("wait", 2, "2:a", "a")).containsExactly(0L, 1L);
    double arrival = redis.zscore(QUEUE, "2:a");
    double deadline = redis.zscore(DEADLINES, "2:a");
    assertThat(deadline - Math.floor(arrival / 1000)).isEqualTo((double) ENTRY_LEASE);
    assertThat(redis.pttl(QUEUE)).isBetween(1L, ENTRY_LEASE);
    assertThat(update("take", 2, "2:b", "b")).as("a take never queues").containsExactly(0L, 1L);
    assertThat(redis.zcard(QUEUE)).isOne();

    redis.zadd(DEADLINES, deadline - 500, "2:a"); // as if time had passed
    update("wait", 2, "2:a", "a");
    assertThat(redis.zscore(QUEUE, "2:a")).as("keeps its place").isEqualTo(arrival);
    assertThat(redis.zscore(DEADLINES, "2:a")).isGreaterThanOrEqualTo(deadline);
  }

  @Test
  void theHeadsPermitsAreReservedAndAReleaseThatLetsItInNamesIt() throws Exception {
    update("set", 1, "", "s1");
    update("wait", 3, "3:head", "head");
    update("wait", 1, "1:next", "next");
    assertThat(update("take", 1, "", "x")).as("reserved for the head").containsExactly(0L, 1L);
    assertThat(update("wait", 1, "1:next", "next")).containsExactly(0L, 1L);

    update("add", 1, "", "r1");
    assertThat(published.poll(100, TimeUnit.MILLISECONDS))
        .as("2 free: not enough for the head, none beyond it")
        .isNull();
    update("add", 2, "", "r2");
    assertThat(published.poll(5, TimeUnit.SECONDS)).isEqualTo("semaphore:released 1 head");

    assertThat(update("wait", 1, "1:next", "next"))
        .as("the one beyond the head")
        .containsExactly(1L, 1L, 3L);
    assertThat(update("take", 1, "", "y")).containsExactly(0L, 3L);
    assertThat(update("wait", 3, "3:head", "head")).containsExactly(1L, 3L, 0L);
    assertThat(redis.exists(QUEUE, DEADLINES)).isZero();
  }

  @Test
  void whenTheHeadTakesItsPermitsTheNextInLineIsNamedIfItCanGo() throws Exception {
    update("set", 0, "", "s1");
    update("wait", 2, "2:first", "first");
    update("wait", 1, "1:second", "second");
    update("add", 3, "", "r1");
    assertThat(published.poll(5, TimeUnit.SECONDS)).isEqualTo("semaphore:released 1 first");
    update("wait", 2, "2:first", "first");
    assertThat(published.poll(5, TimeUnit.SECONDS)).isEqualTo("semaphore:released 0 second");
  }

  @Test
  void theQueueKeepsArrivalOrderWhateverTheEntriesAreNamed() {
    update("set", 0, "", "s1");
    // "9:z" would sort after "1:a" by name; arrivals in one microsecond must not be ordered so
    redis.zadd(QUEUE, serverMillis() * 1000 + 1_000_000, "9:z"); // an arrival "in the future"
    redis.zadd(DEADLINES, serverMillis() + ENTRY_LEASE, "9:z");
    update("wait", 1, "1:a", "a");
    assertThat(redis.zrange(QUEUE, 0, -1)).containsExactly("9:z", "1:a");
  }

  @Test
  void lapsedEntriesAreDroppedAtMostTenPerCallAndReserveNothing() {
    update("set", 1, "", "s1");
    double past = serverMillis() - 1_000;
    for (int i = 0; i < 25; i++) {
      redis.zadd(QUEUE, past + i, "5:dead" + i);
      redis.zadd(DEADLINES, past + i, "5:dead" + i);
    }
    assertThat(update("take", 1, "", "a"))
        .as("a lapsed head reserves nothing")
        .containsExactly(1L, 1L, 0L);
    assertThat(redis.zcard(QUEUE)).isEqualTo(15);
    update("add", 1, "", "r1");
    assertThat(redis.zcard(QUEUE)).isEqualTo(5);
    update("add", 1, "", "r2");
    assertThat(redis.exists(QUEUE, DEADLINES)).isZero();
  }

  @Test
  void leaveDropsTheEntryAndGivesBackAGrantItsAcquisitionNeverLearntOf() {
    update("set", 3, "", "s1");
    update("take", 2, "2:lost", "lost"); // the reply was lost; the acquisition gives up
    assertThat(update("leave", 0, "2:lost", "lost")).containsExactly(1L, 2L, 3L);
    assertThat(update("leave", 0, "2:lost", "lost")).as("replayed").containsExactly(1L, 0L, 3L);
    update("wait", 5, "5:gone", "gone");
    assertThat(update("leave", 0, "5:gone", "gone")).containsExactly(1L, 0L, 3L);
    assertThat(redis.exists(QUEUE, DEADLINES)).isZero();
    assertThat(redis.get(PERMITS)).isEqualTo("3");
  }

  @Test
  void releasesPublishNothingWhileNobodyIsQueued() throws Exception {
    update("set", 1, "", "s1");
    update("add", 1, "", "r1");
    update("take", 2, "2:a", "a");
    update("add", 2, "", "r2");
    assertThat(published.poll(200, TimeUnit.MILLISECONDS)).isNull();
    assertThat(redis.info("commandstats")).doesNotContain("cmdstat_publish");
  }

  @Test
  void aWrongTypeUnderTheSemaphoreKeyIsAnErrorAndIsNotTouched() {
    redis.hset(PERMITS, "x", "y");
    assertThatThrownBy(() -> update("take", 1, "", "a")).hasMessageContaining("WRONGTYPE");
    assertThatThrownBy(() -> update("add", 1, "", "b")).hasMessageContaining("WRONGTYPE");
    assertThat(redis.hget(PERMITS, "x")).isEqualTo("y");
  }

  // ---- leased-semaphore-* ----

  private List<Object> leasedAcquire(String id, long lease, boolean waits) {
    return LuaScripts.run(
        redis,
        "leased-semaphore-acquire",
        new String[] {LEASED, LEASES},
        id,
        Long.toString(lease),
        waits ? "1" : "0",
        "0",
        "60000",
        "warden:{s}:leased-semaphore:released",
        NO_IDLE_EXPIRY);
  }

  @Test
  void aReplayedLeasedAcquisitionFindsItsOwnLeaseAndTakesNothingMore() {
    redis.hset(LEASED, "permits", "2");
    assertThat(leasedAcquire("a", 10_000, false)).containsExactly(1L);
    assertThat(leasedAcquire("a", 10_000, false)).as("replayed").containsExactly(1L);
    assertThat(redis.hget(LEASED, "permits")).isEqualTo("1");
    assertThat(redis.zcard(LEASES)).isOne();
  }

  @Test
  void aRefusedLeasedAcquisitionSaysWhenTheEarliestLeaseEnds() {
    redis.hset(LEASED, "permits", "1");
    leasedAcquire("a", 5_000, false);
    List<Object> refused = leasedAcquire("b", 5_000, true);
    assertThat(refused.get(0)).isEqualTo(0L);
    assertThat((Long) refused.get(1)).isBetween(1L, 5_000L);
    assertThat(redis.hexists(LEASED, "#w")).isTrue();
    assertThat(redis.ttl(LEASED)).as("a set semaphore never expires").isEqualTo(-1L);
  }

  @Test
  void aWaiterOnANeverSetLeasedSemaphoreLeavesOnlyAnExpiringMark() {
    assertThat(leasedAcquire("a", 5_000, true)).containsExactly(0L, -1L);
    assertThat(redis.hgetall(LEASED)).containsOnlyKeys("#w");
    assertThat(redis.pttl(LEASED)).isBetween(1L, 60_000L);
    LuaScripts.run(
        redis,
        "leased-semaphore-add",
        new String[] {LEASED, "warden:{s}:leased-semaphore:op:x", LEASES},
        "set",
        "1",
        "10000",
        "warden:{s}:leased-semaphore:released",
        NO_IDLE_EXPIRY);
    assertThat(redis.pttl(LEASED)).as("set: persistent").isEqualTo(-1L);
    assertThat(redis.hexists(LEASED, "#w")).as("cleared by the message it sent").isFalse();
  }

  /** A release of a leased permit under the marker of that release (the same for its retries). */
  private List<Object> releaseLease(String id, String releaseMarker) {
    return LuaScripts.run(
        redis,
        "leased-semaphore-release",
        new String[] {LEASED, LEASES, releaseMarker},
        id,
        "warden:{s}:leased-semaphore:released",
        "10000",
        NO_IDLE_EXPIRY);
  }

  @Test
  void releasingAnEndedLeaseReturnsThePermitOnceAndReportsIt() {
    redis.hset(LEASED, "permits", "0");
    redis.zadd(LEASES, serverMillis() - 1, "old");
    String marker = "warden:{s}:leased-semaphore:op:r1";
    assertThat(releaseLease("old", marker)).containsExactly(0L);
    assertThat(redis.hget(LEASED, "permits")).isEqualTo("1");
    assertThat(redis.exists(marker)).as("no marker: it freed no live permit").isZero();
    assertThat(releaseLease("old", marker)).as("its retry").containsExactly(0L);
    assertThat(redis.hget(LEASED, "permits")).isEqualTo("1");
  }

  @Test
  void aReleaseRunAgainFindsItsOwnMarkerAndAnotherReleaseDoesNot() {
    redis.hset(LEASED, "permits", "0");
    redis.zadd(LEASES, serverMillis() + 60_000, "live");
    String marker = "warden:{s}:leased-semaphore:op:r1";
    assertThat(releaseLease("live", marker)).containsExactly(1L);
    assertThat(redis.hget(LEASED, "permits")).isEqualTo("1");
    assertThat(redis.pttl(marker)).isBetween(1L, 10_000L);
    assertThat(releaseLease("live", marker)).as("its retry: released by it").containsExactly(1L);
    assertThat(redis.hget(LEASED, "permits")).as("counted once").isEqualTo("1");
    assertThat(releaseLease("live", "warden:{s}:leased-semaphore:op:r2"))
        .as("another release of the same id: released already")
        .containsExactly(0L);
  }

  // ---- latch-* ----

  private List<Object> countDown(String marker) {
    return LuaScripts.run(
        redis,
        "latch-count-down",
        new String[] {LATCH, "warden:{s}:latch:op:" + marker},
        LATCH_CHANNEL,
        "10000",
        NO_IDLE_EXPIRY);
  }

  @Test
  void aReplayedCountDownCountsOnce() {
    redis.hset(LATCH, "count", "3");
    assertThat(countDown("a")).containsExactly(1L);
    assertThat(countDown("a")).as("replayed").containsExactly(1L);
    assertThat(redis.hget(LATCH, "count")).isEqualTo("2");
  }

  @Test
  void theCountDownToZeroDeletesTheLatchAndPublishesAllOnlyIfAwaited() throws Exception {
    redis.hset(LATCH, "count", "1");
    countDown("a");
    assertThat(redis.exists(LATCH)).isZero();
    assertThat(countDown("b")).as("zero: nothing happens").containsExactly(0L);
    assertThat(published.poll(200, TimeUnit.MILLISECONDS)).isNull();

    redis.hset(LATCH, "count", "1");
    assertThat(awaitLatch("")).as("set before armings were recorded").containsExactly(0L, "");
    countDown("c");
    assertThat(published.poll(5, TimeUnit.SECONDS)).isEqualTo("latch:released all");
    assertThat(awaitLatch("")).containsExactly(1L);
    assertThat(redis.exists(LATCH)).as("awaiting an open latch leaves nothing").isZero();
  }

  private List<Object> awaitLatch(String arming) {
    return LuaScripts.run(redis, "latch-await", new String[] {LATCH}, arming, NO_IDLE_EXPIRY);
  }

  private List<Object> setLatch(String marker, int count) {
    return LuaScripts.run(
        redis,
        "latch-set",
        new String[] {LATCH, "warden:{s}:latch:op:" + marker},
        Integer.toString(count),
        "10000",
        NO_IDLE_EXPIRY);
  }

  @Test
  void anAwaiterThatFindsTheLatchSetAgainSinceItFirstLookedFindsItOpened() {
    assertThat(setLatch("m1", 1)).containsExactly(1L);
    List<Object> first = awaitLatch("");
    assertThat(first).containsExactly(0L, "warden:{s}:latch:op:m1");
    String arming = (String) first.get(1);
    assertThat(awaitLatch(arming)).as("still the same arming").containsExactly(0L, arming);
    countDown("d");
    assertThat(setLatch("m2", 1)).as("set again before the awaiter looked").containsExactly(1L);
    assertThat(awaitLatch(arming)).as("it opened meanwhile").containsExactly(1L);
    assertThat(awaitLatch(""))
        .as("a new awaiter waits")
        .containsExactly(0L, "warden:{s}:latch:op:m2");
  }

  private double serverMillis() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1000.0 + Long.parseLong(time.get(1)) / 1000.0;
  }
}
