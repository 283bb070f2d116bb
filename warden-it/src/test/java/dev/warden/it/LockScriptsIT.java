package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.internal.redis.Script;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lock scripts on their own, called directly with EVAL: what each returns and leaves in Redis,
 * including the replays that reconnects and retries can cause.
 */
@ExtendWith(WardenExtension.class)
class LockScriptsIT {
  private static final String LOCK = "warden:{s}:lock";
  private static final String FENCE = "warden:{s}:lock:fence";

  /** The fence terms of one server: an hour's retention, epoch 0 (see prelude.lua). */
  private static final String FENCE_TERMS = "3600000:0";

  /** 2020-01-01T00:00:00Z, where fence clocks start. */
  private static final long CLOCK_START_MICROS = 1_577_836_800_000_000L;

  /** The fence terms acquisitions pass; a test may change the epoch. */
  private String fenceTerms = FENCE_TERMS;

  private static final String CHANNEL = "warden:{s}:lock:released";

  private RedisCommands<String, String> redis;

  @BeforeEach
  void connect(RedisServer server) {
    redis = server.redis();
  }

  private int acquisitions;

  /** A new acquisition (its own id) by the owner. */
  private List<Object> acquire(String owner, int heldBefore, long lease, boolean othersWait) {
    return acquire(owner, "acq-" + ++acquisitions, heldBefore, lease, othersWait);
  }

  private List<Object> acquire(
      String owner, String acquisitionId, int heldBefore, long lease, boolean othersWait) {
    return acquire(owner, acquisitionId, heldBefore, lease, othersWait, false);
  }

  /** {@code waits}: whether the acquirer waits if refused. */
  private List<Object> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long lease,
      boolean othersWait,
      boolean waits) {
    return run(
        "lock-acquire",
        new String[] {LOCK, FENCE},
        owner,
        Long.toString(lease),
        Integer.toString(heldBefore),
        othersWait ? "1" : "0",
        fenceTerms,
        acquisitionId,
        owner.substring(0, owner.indexOf(':') + 1), // the client: 'c1:' of 'c1:7'
        waits ? "1" : "0");
  }

  private List<Object> refused(String owner, boolean waits) {
    return acquire(owner, "acq-" + ++acquisitions, 0, 10_000, false, waits);
  }

  private int releases;

  /** A hand-off by a new release of the giver to a new acquisition of the waiter. */
  private List<Object> transfer(String from, String to) {
    return transfer(from, "rel-" + ++releases, to, "acq-" + ++acquisitions);
  }

  private List<Object> transfer(String from, String releaseId, String to, String acquisitionId) {
    return run(
        "lock-transfer",
        new String[] {LOCK, FENCE, marker(from)},
        from,
        to,
        "10000",
        acquisitionId,
        FENCE_TERMS,
        releaseId,
        "10000");
  }

  /** The marker of the owner's release that ended its hold (see lock-release.lua). */
  private static String marker(String owner) {
    return LOCK + ":unlocked:" + owner;
  }

  /** A new release that ends a full row of hand-offs, with turns and reservations of 10 s. */
  private List<Object> release(String owner, int heldBefore) {
    return release(owner, heldBefore, "rel-" + ++releases);
  }

  /** A release with its id: a replay passes the same id. */
  private List<Object> release(String owner, int heldBefore, String releaseId) {
    return lockRelease(owner, heldBefore, "1", "10000", "10000", "", releaseId);
  }

  /**
   * {@code yielding}: '1' when the release ends a full row; {@code turn}: a nominated client's
   * turn, ms; {@code reservation}: how long a lock is kept from the releasing client, ms.
   */
  private List<Object> release(
      String owner, int heldBefore, String yielding, String turn, String reservation) {
    return lockRelease(owner, heldBefore, yielding, turn, reservation, "", "rel-" + ++releases);
  }

  /** A give-back of acquisition {@code acquisitionId}, leaving the owner at most {@code keep}. */
  private List<Object> giveBack(String owner, String acquisitionId, int keep) {
    return lockRelease(owner, keep, "0", "10000", "10000", acquisitionId, "");
  }

  private List<Object> lockRelease(
      String owner,
      int count,
      String yielding,
      String turn,
      String reservation,
      String undo,
      String releaseId) {
    return lockRelease(owner, count, yielding, turn, reservation, undo, releaseId, "");
  }

  /**
   * The drop of a hold its client declared lost (LockDriver.dropLost): a release as of a count of
   * one, with no release id and no direct grant, ended only while the hold has {@code token}.
   */
  private List<Object> drop(String owner, long token) {
    return lockRelease(owner, 1, "0", "10000", "10000", "", "", Long.toString(token));
  }

  /** {@code token}: the token the owner's hold must still have (ARGV[14]), or '' for none. */
  private List<Object> lockRelease(
      String owner,
      int count,
      String yielding,
      String turn,
      String reservation,
      String undo,
      String releaseId,
      String token) {
    return run(
        "lock-release",
        new String[] {LOCK, marker(owner), FENCE},
        owner,
        Integer.toString(count),
        CHANNEL,
        "released client-1",
        yielding,
        turn,
        reservation,
        "20000",
        undo,
        releaseId,
        "10000",
        "",
        FENCE_TERMS,
        token);
  }

  /** A multi-lock's attempt on this one lock alone. */
  private List<Object> acquireAll(String owner) {
    return run(
        "lock-acquire-all",
        new String[] {LOCK, FENCE},
        owner,
        "10000",
        fenceTerms,
        "g-" + ++acquisitions,
        "0");
  }

  /** An attempt after a refusal, with lock-acquire's hints: ARGV[9] '1', ARGV[10] the holder. */
  private List<Object> hinted(String owner, String knownHolder) {
    return run(
        "lock-acquire",
        new String[] {LOCK, FENCE},
        owner,
        "10000",
        "0",
        "0",
        fenceTerms,
        "acq-" + ++acquisitions,
        owner.substring(0, owner.indexOf(':') + 1),
        "1",
        "1",
        knownHolder);
  }

  @Test
  void aRefusalNamesTheHolderAndARefusalByTheHolderTheHintNamesDoesNotReadItsLease() {
    redis.configResetstat();
    long first = token(acquire("c1:1", 0, 10_000, false));
    List<Object> refused = refused("c2:1", true);
    assertThat(refused.get(0)).isEqualTo(0L);
    assertThat((Long) refused.get(1)).isBetween(1L, 10_000L);
    assertThat(refused.get(2)).as("the holder's token").isEqualTo(Long.toString(first));

    Map<String, String> before = redis.hgetall(LOCK);
    long pttls = calls("pttl");
    assertThat(hinted("c2:1", Long.toString(first))).containsExactly(0L, -2L);
    assertThat(calls("pttl")).as("the lease the client knows stands").isEqualTo(pttls);
    assertThat(redis.hgetall(LOCK)).isEqualTo(before);

    // a new holder (the first's hold gone without a release): its lease is read, whatever the hint
    redis.del(LOCK);
    long second = token(acquire("c3:1", 0, 2_000, false));
    List<Object> renamed = hinted("c2:1", Long.toString(first));
    assertThat(renamed.get(0)).isEqualTo(0L);
    assertThat((Long) renamed.get(1)).isBetween(1L, 2_000L);
    assertThat(renamed.get(2)).isEqualTo(Long.toString(second));
    assertThat(hinted("c2:1", "")).as("no hint: read").hasSize(3);
  }

  /**
   * The holder's lease set shorter under the same token ({@code LockHandle.extend} with a shorter
   * lease, {@code closeAfter}, a renewal after a re-entry's longer lease: each a lock-renew call):
   * the expiry the waiting client knows does not stand any more, and a refusal by that holder reads
   * the lease again, or the waiter would find the lock free only at its next re-check.
   */
  @Test
  void aRefusalByTheHolderTheHintNamesReadsTheLeaseOnceItWasSetShorter() {
    long holder = token(acquire("c1:1", 0, 30_000, false));
    List<Object> refused = refused("c2:1", true);
    assertThat((Long) refused.get(1)).isGreaterThan(20_000L);
    assertThat(hinted("c2:1", Long.toString(holder))).containsExactly(0L, -2L);

    assertThat(run("lock-renew", new String[] {LOCK}, "2000", "c1:1")).isEmpty();
    List<Object> after = hinted("c2:1", Long.toString(holder));
    assertThat(after.get(0)).isEqualTo(0L);
    assertThat((Long) after.get(1)).as("the shorter lease, read").isBetween(1L, 2_000L);
    assertThat(after.get(2)).isEqualTo(Long.toString(holder));

    // a renewal that lengthens it (the lease keeper's usual one) leaves the hint usable
    redis.del(LOCK);
    long next = token(acquire("c3:1", 0, 10_000, false));
    assertThat(run("lock-renew", new String[] {LOCK}, "30000", "c3:1")).isEmpty();
    assertThat(hinted("c2:1", Long.toString(next))).containsExactly(0L, -2L);
    assertThat(redis.pttl(LOCK)).isGreaterThan(20_000L);
  }

  @Test
  void anAttemptAfterARefusalTakesAMissingLockAsTheExistsPathDoes() {
    redis.configResetstat();
    List<Object> reply = hinted("c2:1", "12345");
    assertThat(reply.get(0)).isEqualTo(1L);
    assertThat(reply.get(2)).isEqualTo(1L);
    assertThat(calls("exists")).as("skipped").isZero();
    assertThat(redis.hgetall(LOCK))
        .containsOnlyKeys("c2:1", "#t", "#a", "#c")
        .containsEntry("#c", "c2:");
    assertThat(redis.pttl(LOCK)).isBetween(1L, 10_000L);
  }

  /** How many times Redis ran this command since its statistics were reset. */
  private long calls(String command) {
    for (String line : redis.info("commandstats").split("\r?\n", -1)) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        String rest = line.substring(("cmdstat_" + command + ":calls=").length());
        return Long.parseLong(rest.substring(0, rest.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void aFreeLockIsTakenWithATokenFromTheServerClockAndTheLease() {
    List<Object> reply = acquire("a", 0, 10_000, false);
    assertThat(reply.get(0)).isEqualTo(1L);
    long token = token(reply);
    // epoch 0: the token is the server clock in 10 us units since 2020-01-01
    long clock = (serverMicros() - CLOCK_START_MICROS) / 10;
    assertThat(token).isBetween(clock - 6_000_000L, clock);
    assertThat(reply.get(2)).isEqualTo(1L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("a", "1")
        .containsEntry("#t", Long.toString(token));
    assertThat(redis.hgetall(FENCE))
        .containsEntry("e", "0")
        .containsEntry("c", Long.toString(token));
    assertThat(redis.pttl(FENCE)).as("the fence expires: no key per name forever").isPositive();
  }

  @Test
  void tokensCountUpAndRestartFromTheClockAfterAnOlderRestoreOrWhenTheFenceIsGone() {
    long first = token(acquire("a", 0, 10_000, false));
    release("a", 1);
    long second = token(acquire("b", 0, 10_000, false));
    assertThat(second).as("two tokens within 10 us of clock still differ").isGreaterThan(first);
    release("b", 1);
    long ttl = redis.pttl(FENCE);
    redis.hset(FENCE, Map.of("e", "0", "c", "5")); // far behind the clock, as after an old RDB
    long third = token(acquire("c", 0, 10_000, false));
    assertThat(third).isGreaterThan(second);
    assertThat(redis.pttl(FENCE)).as("minting does not prolong the fence").isLessThanOrEqualTo(ttl);
    release("c", 1);
    redis.del(FENCE);
    assertThat(token(acquire("d", 0, 10_000, false))).isGreaterThan(third);
  }

  @Test
  void aNewEpochRanksAboveEveryTokenOfTheOldOneWhateverTheClockSays() {
    fenceTerms = "3600000:3";
    long lagging = token(acquire("a", 0, 10_000, false));
    release("a", 1);
    // the old master minted tokens far ahead of the clock that no replica received: forge them
    long forged = (3L << 47) + (serverMicros() - CLOCK_START_MICROS) / 10 + 3_000_000L;
    redis.hset(FENCE, Map.of("e", "3", "c", Long.toString(forged - (3L << 47))));
    assertThat(token(acquire("b", 0, 10_000, false))).isEqualTo(forged + 1);
    release("b", 1);
    // the promoted replica has the state before them; its epoch is 4
    redis.hset(FENCE, Map.of("e", "3", "c", Long.toString(lagging - (3L << 47))));
    fenceTerms = "3600000:4";
    long promoted = token(acquire("c", 0, 10_000, false));
    assertThat(promoted).isGreaterThan(forged + 1).isGreaterThanOrEqualTo(4L << 47);
    release("c", 1);
    // a client that still passes the older epoch never lowers them
    fenceTerms = "3600000:3";
    assertThat(token(acquire("d", 0, 10_000, false))).isGreaterThan(promoted);
  }

  @Test
  void tokensAboveTwoToThe53AreExact() {
    fenceTerms = "3600000:65535"; // the largest epoch: tokens near 2^63, beyond a double's 2^53
    long first = token(acquire("a", 0, 10_000, false));
    assertThat(first).isEqualTo((65535L << 47) + Long.parseLong(redis.hget(FENCE, "c")));
    release("a", 1);
    long second = token(acquire("b", 0, 10_000, false));
    assertThat(second)
        .isGreaterThan(first)
        .isEqualTo((65535L << 47) + Long.parseLong(redis.hget(FENCE, "c")));
    assertThat(redis.hget(LOCK, "#t")).isEqualTo(Long.toString(second));
    release("b", 1);
    fenceTerms = "3600000:70000"; // beyond it: kept at the largest, still rising
    long third = token(acquire("c", 0, 10_000, false));
    assertThat(third).isGreaterThan(second);
    assertThat(redis.hget(FENCE, "e")).isEqualTo("65535");
  }

  @Test
  void tokensAreExactOnBothSidesOfTwoToThe53() {
    // epoch 63: the token is below 2^53, one double; epoch 64: from 2^53 on, in two limbs. The
    // counts are odd (ahead of the clock: one more than the last), which no double holds above 2^53
    for (long epoch : new long[] {63, 64}) {
      fenceTerms = "3600000:" + epoch;
      for (int i = 0; i < 2; i++) {
        long last = 100_000_000_000_000L + 2L * i;
        redis.hset(FENCE, Map.of("e", Long.toString(epoch), "c", Long.toString(last)));
        long token = token(acquire("a", 0, 10_000, false));
        assertThat(redis.hget(FENCE, "e")).isEqualTo(Long.toString(epoch));
        assertThat(redis.hget(FENCE, "c")).isEqualTo(Long.toString(last + 1));
        assertThat(token).isEqualTo((epoch << 47) + last + 1);
        assertThat(redis.hget(LOCK, "#t")).isEqualTo(Long.toString(token));
        release("a", 1);
      }
    }
  }

  @Test
  void anotherOwnerIsRefusedWithTheRemainingLeaseAndMarksTheLockAsWaitedFor() {
    acquire("a", 0, 10_000, false);
    List<Object> refused = acquire("b", 0, 10_000, false);
    assertThat(refused.get(0)).isEqualTo(0L);
    assertThat((Long) refused.get(1)).isBetween(9_000L, 10_000L);
    assertThat(redis.hexists(LOCK, "#w")).isTrue();
    assertThat(redis.hexists(LOCK, "b")).isFalse();
  }

  @Test
  void onlyAWaiterOfAnotherClientMarksTheLockAsWaitedForBeyondHandOffs() {
    acquire("c1:1", 0, 10_000, false);
    assertThat(redis.hget(LOCK, "#c")).as("the holder's client").isEqualTo("c1:");
    assertThat(refused("c1:2", true).get(0)).isEqualTo(0L);
    assertThat(refused("c2:1", false).get(0)).isEqualTo(0L);
    assertThat(redis.hexists(LOCK, "#o"))
        .as("a thread of the holder's client can be handed the lock; a try without wait leaves")
        .isFalse();
    assertThat(redis.hexists(LOCK, "#w")).isTrue();

    assertThat(refused("c2:1", true).get(0)).isEqualTo(0L);
    assertThat(redis.hexists(LOCK, "#o")).isTrue();
    assertThat(redis.hget(LOCK, "#q")).as("its client is listed for a turn").isEqualTo("c2:");
    release("c1:1", 1);
    assertThat(redis.hgetall(LOCK))
        .as("the marks end with the hold; the lock is nominated for the waiting client")
        .containsEntry("#n", "c2:")
        .containsOnlyKeys("#n", "#d");
  }

  @Test
  void aLastReleaseGivesTheWaitingClientsTheirTurnsInTheOrderTheyWereFirstRefused() {
    long first = token(acquire("c1:1", 0, 10_000, false));
    refused("c2:1", true);
    refused("c3:1", true);
    refused("c2:2", true);
    assertThat(redis.hget(LOCK, "#q")).as("each client once, in order").isEqualTo("c2:c3:");
    release("c1:1", 1, "0", "10000", "10000");
    assertThat(redis.hget(LOCK, "#n")).isEqualTo("c2:");
    assertThat(redis.hget(LOCK, "#q")).isEqualTo("c3:");

    assertThat(refused("c1:2", true).get(0))
        .as("the releasing client waits its turn")
        .isEqualTo(0L);
    assertThat(refused("c3:1", true).get(0)).as("so does the next client").isEqualTo(0L);
    assertThat(redis.hget(LOCK, "#q")).isEqualTo("c3:c1:");

    List<Object> nominee = acquire("c2:7", 0, 10_000, false);
    assertThat(nominee.get(0)).as("any thread of the nominated client takes it").isEqualTo(1L);
    assertThat(token(nominee)).isGreaterThan(first);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("c2:7", "1")
        .containsEntry("#c", "c2:")
        .containsEntry("#o", "1")
        .containsEntry("#w", "1")
        .containsEntry("#q", "c3:c1:")
        .doesNotContainKeys("#n", "#d");
    assertThat(redis.pttl(LOCK)).isGreaterThan(9_000L);

    release("c2:7", 1, "0", "10000", "10000");
    assertThat(redis.hget(LOCK, "#n")).isEqualTo("c3:");
    assertThat(acquire("c3:1", 0, 10_000, false).get(0)).isEqualTo(1L);
    release("c3:1", 1, "0", "10000", "10000");
    assertThat(redis.hget(LOCK, "#n")).isEqualTo("c1:");
    assertThat(redis.hexists(LOCK, "#q")).isFalse();
    assertThat(acquire("c1:2", 0, 10_000, false).get(0)).isEqualTo(1L);
    release("c1:2", 1, "0", "10000", "10000");
    assertThat(redis.exists(LOCK)).as("nobody else was refused").isZero();
  }

  @Test
  void aTurnNobodyTakesEndsAndTheNextAcquirerTakesTheLockWithTheRestOfTheList() {
    acquire("c1:1", 0, 10_000, false);
    refused("c2:1", true);
    refused("c3:1", true);
    refused("c4:1", true);
    release("c1:1", 1, "0", "1", "10000"); // a turn of 1 ms for c2
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(5))
        .until(() -> acquire("c4:1", 0, 10_000, false).get(0).equals(1L));
    assertThat(redis.hgetall(LOCK))
        .as("c4 took its turn early; c3 is still next")
        .containsEntry("c4:1", "1")
        .containsEntry("#q", "c3:");
  }

  @Test
  void aLastReleaseThatEndsAFullRowWhileOnlyAMultiLockWaitedKeepsTheLockFromItsClient() {
    long first = token(acquire("c1:1", 0, 10_000, false));
    assertThat(acquireAll("c9:m").get(0)).isEqualTo(0L); // marks '#o', lists no client
    release("c1:1", 1);
    assertThat(redis.hgetall(LOCK)).containsExactly(java.util.Map.entry("#r", "c1:"));
    assertThat(redis.pttl(LOCK)).isBetween(1L, 10_000L);

    List<Object> own = refused("c1:2", true);
    assertThat(own.get(0)).as("the releasing client's thread is refused").isEqualTo(0L);
    assertThat((Long) own.get(1)).as("until the reservation ends").isBetween(1L, 10_000L);
    assertThat(redis.hget(LOCK, "#w")).as("so the next holder publishes").isEqualTo("1");

    List<Object> other = acquire("c2:1", 0, 30_000, false);
    assertThat(other.get(0)).isEqualTo(1L);
    assertThat(token(other)).isGreaterThan(first);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("c2:1", "1")
        .containsEntry("#c", "c2:")
        .containsEntry("#w", "1")
        .doesNotContainKeys("#r", "#o");
    assertThat(redis.pttl(LOCK)).isGreaterThan(10_000L);
    release("c2:1", 1);
    assertThat(redis.exists(LOCK)).as("nobody of another client waited").isZero();
  }

  @Test
  void aLastReleaseThatIsNoRowsEndWhileOnlyAMultiLockWaitedFreesTheLock() {
    acquire("c1:1", 0, 10_000, false);
    acquireAll("c9:m");
    release("c1:1", 1, "0", "10000", "10000");
    assertThat(redis.exists(LOCK)).isZero();
    assertThat(acquire("c1:1", 0, 10_000, false).get(0)).isEqualTo(1L);
  }

  @Test
  void aMultiLockMayTakeALockNominatedForAClientWhichKeepsTheTurnsOfTheOthers() {
    acquire("c1:1", 0, 10_000, false);
    refused("c2:1", true);
    refused("c3:1", true);
    release("c1:1", 1);
    assertThat(acquireAll("c1:m").get(0))
        .as("a multi-lock is no hand-off's waiter: it may take it")
        .isEqualTo(1L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("c1:m", "1")
        .containsEntry("#q", "c3:")
        .containsEntry("#o", "1")
        .doesNotContainKeys("#r", "#n", "#d");
    release("c1:m", 1);
    assertThat(redis.hget(LOCK, "#n")).isEqualTo("c3:");
  }

  @Test
  void aReservationNobodyTakesEndsWithItsExpiry() {
    acquire("c1:1", 0, 10_000, false);
    acquireAll("c9:m");
    release("c1:1", 1, "1", "10000", "1"); // a reservation of 1 ms
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(5))
        .until(() -> redis.exists(LOCK) == 0);
    assertThat(acquire("c1:2", 0, 10_000, false).get(0)).isEqualTo(1L);
  }

  @Test
  void aTransferHandsTheLastHoldOverWithAHigherTokenAndSaysWhetherOthersWait() {
    long first = token(acquire("c1:1", 0, 10_000, false));
    List<Object> handedOver = transfer("c1:1", "c1:2");
    assertThat(handedOver.get(0)).isEqualTo(1L);
    long second = token(handedOver);
    assertThat(second).isGreaterThan(first);
    assertThat(handedOver.get(2)).isEqualTo(0L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("c1:2", "1")
        .containsEntry("#t", Long.toString(second))
        .containsEntry("#c", "c1:")
        .doesNotContainKey("c1:1");

    refused("c2:1", true);
    List<Object> again = transfer("c1:2", "c1:3");
    assertThat(again.get(0)).isEqualTo(1L);
    assertThat(token(again)).isGreaterThan(second);
    assertThat(again.get(2)).isEqualTo(1L);

    assertThat(transfer("c1:2", "c1:4")).as("the giver holds nothing now").containsExactly(0L);
    redis.hset(LOCK, "c1:3", "2"); // a count the client does not know of: it knows its last hold
    assertThat(transfer("c1:3", "c1:4").get(0)).as("handed over all the same").isEqualTo(1L);
    assertThat(redis.hgetall(LOCK)).containsEntry("c1:4", "1").doesNotContainKey("c1:3");
  }

  @Test
  void aTransferRecordsTheGiversReleaseAndAGiveBackOfTheWaitersAcquisitionUndoesIt() {
    acquire("c1:1", 0, 10_000, false);
    assertThat(transfer("c1:1", "r1", "c1:2", "w1").get(0)).isEqualTo(1L);
    assertThat(release("c1:1", 1, "r1"))
        .as("the giver's release run again: it ended the hold")
        .containsExactly(1L, 0L);
    assertThat(release("c1:1", 1, "r2")).as("another release of the giver").containsExactly(0L);
    assertThat(giveBack("c1:2", "w1", 0))
        .as("the waiter gave up: the hand-off goes back")
        .containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
  }

  @Test
  void aGiveBackOfAHandOffLeavesTheWaitersNextAcquisitionAlone() {
    acquire("c1:1", 0, 10_000, false);
    long handedOver = token(transfer("c1:1", "r1", "c1:2", "w1"));
    // the waiter gave up; its thread's next acquisition reaches Redis before the give-back
    List<Object> next = acquire("c1:2", "w2", 0, 10_000, false);
    assertThat(next.get(2)).as("the unknown hold becomes the next acquisition's").isEqualTo(1L);
    assertThat(token(next)).isGreaterThan(handedOver);
    assertThat(giveBack("c1:2", "w1", 0)).containsExactly(0L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("c1:2", "1")
        .containsEntry("#a", "w2")
        .containsEntry("#t", Long.toString(token(next)));
    assertThat(release("c1:2", 1)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
  }

  /**
   * A hold its client declared lost by its lease deadline (renewals that reached Redis late may
   * have kept it) ends by its token, whatever its count, and wakes waiters as a last release does;
   * a hold of the same owner taken afresh since (a new token) is never dropped.
   */
  @Test
  void aDropOfALostHoldEndsItOnlyUnderItsToken() {
    long lost = token(acquire("c1:1", 0, 10_000, false));
    acquire("c1:1", 1, 10_000, false); // a re-entry: count 2, same token
    long taken = token(acquire("c1:1", 0, 10_000, false)); // the owner, afresh
    assertThat(taken).isGreaterThan(lost);
    assertThat(drop("c1:1", lost)).as("not the hold meant").containsExactly(0L);
    assertThat(redis.hget(LOCK, "c1:1")).isEqualTo("1");

    acquire("c1:1", 1, 10_000, false); // count 2 again
    assertThat(refused("c2:1", true).get(0)).isEqualTo(0L); // somebody waits
    assertThat(drop("c1:1", taken)).containsExactly(1L, 0L);
    assertThat(redis.hexists(LOCK, "c1:1")).as("whatever its count").isFalse();
    assertThat(redis.hget(LOCK, "#n")).as("the waiting client's turn").isEqualTo("c2:");
    assertThat(drop("c1:1", taken)).as("sent again").containsExactly(0L);
  }

  @Test
  void aHoldTheClientDoesNotKnowOfIsTakenOverWithCountOneAndANewToken() {
    long revived = token(acquire("a", "before", 0, 10_000, false));
    redis.hset(LOCK, "a", "3"); // whatever Redis counted
    // as after a rewind: the hold is back, and tokens were issued meanwhile
    long since = Long.parseLong(redis.hget(FENCE, "c")) + 1_000;
    redis.hset(FENCE, "c", Long.toString(since));
    List<Object> reply = acquire("a", "after", 0, 10_000, false); // the client knows no hold
    assertThat(reply.get(0)).isEqualTo(1L);
    assertThat(token(reply)).isGreaterThan(revived).isGreaterThan(since);
    assertThat(reply.get(2)).as("the client's count").isEqualTo(1L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("a", "1")
        .containsEntry("#a", "after")
        .containsEntry("#t", Long.toString(token(reply)));
    List<Object> retry = acquire("a", "after", 0, 10_000, false);
    assertThat(retry.get(2)).as("a retry keeps the count").isEqualTo(1L);
    assertThat(token(retry))
        .as("with a new token: its client saw none")
        .isGreaterThan(token(reply));
    assertThat(release("a", 1)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).as("its owner's release ends it").isZero();
  }

  @Test
  void aFirstAcquisitionRetriedAfterARewindGetsATokenAboveTheOnesIssuedMeanwhile() {
    acquire("a", "x", 0, 30_000, false); // its reply is lost
    byte[] hold = redis.dump(LOCK); // the snapshot a restart later comes back to
    byte[] fence = redis.dump(FENCE);
    redis.del(LOCK); // its lease ran out: its client never renewed a hold it did not know of
    long meanwhile = token(acquire("b", "y", 0, 30_000, false));
    assertThat(release("b", 1)).containsExactly(1L, 0L);
    redis.restore(LOCK, hold, RestoreArgs.Builder.ttl(30_000));
    redis.restore(FENCE, fence, RestoreArgs.Builder.ttl(3_600_000).replace());
    List<Object> retry = acquire("a", "x", 0, 30_000, false); // finds its own first run
    assertThat(retry.get(2)).isEqualTo(1L);
    assertThat(token(retry)).as("above b's, which the rewind lost").isGreaterThan(meanwhile);
    assertThat(redis.hget(LOCK, "#t")).isEqualTo(Long.toString(token(retry)));
  }

  @Test
  void aHoldBroughtBackByARewindEndsWithItsOwnersNextReleaseAndLetsOthersIn() {
    acquire("c1:1", "a1", 0, 30_000, false);
    byte[] snapshot = redis.dump(LOCK);
    assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
    redis.restore(LOCK, 30_000, snapshot); // the restart from the snapshot brings the hold back
    for (int turn = 2; turn < 5; turn++) {
      List<Object> relock = acquire("c1:1", "a" + turn, 0, 30_000, false);
      assertThat(relock.get(2)).as("count, turn %d", turn).isEqualTo(1L);
      assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
      assertThat(redis.exists(LOCK)).isZero();
    }
    assertThat(acquire("c2:9", 0, 10_000, false).get(0)).as("another client").isEqualTo(1L);
  }

  @Test
  void aRetriedAcquisitionDoesNotCountTwice() {
    acquire("a", "first", 0, 10_000, false);
    List<Object> retry = acquire("a", "first", 0, 10_000, false); // the client still believes 0
    assertThat(retry.get(0)).isEqualTo(1L);
    assertThat(retry.get(2)).isEqualTo(1L);
    acquire("a", "second", 1, 10_000, false);
    List<Object> retriedReentry = acquire("a", "second", 1, 10_000, false);
    assertThat(retriedReentry.get(2)).isEqualTo(2L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("2");
  }

  @Test
  void aReentryRetriedAfterTheLeaseWasLostIsGivenBackWhole() {
    long first = token(acquire("a", "outer", 0, 10_000, false));
    redis.del(LOCK); // the lease was lost
    List<Object> reentry = acquire("a", "inner", 1, 10_000, false); // took the free lock afresh
    assertThat(token(reentry)).isGreaterThan(first);
    assertThat(acquire("a", "inner", 1, 10_000, false))
        .as("its retry is a replay: no second count")
        .isEqualTo(reentry);
    // the client sees another token: its hold was lost; it gives the re-entry back, all of it
    assertThat(giveBack("a", "inner", 0)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
  }

  @Test
  void aGiveBackUndoesOnlyTheAcquisitionItNames() {
    acquire("a", "abandoned", 0, 10_000, false); // granted after its caller gave up
    List<Object> next = acquire("a", "next", 0, 10_000, false); // the same owner's next one
    assertThat(next.get(2)).isEqualTo(1L);
    assertThat(giveBack("a", "abandoned", 0))
        .as("the hold is the next acquisition's now")
        .containsExactly(0L);
    assertThat(redis.hgetall(LOCK))
        .containsEntry("a", "1")
        .containsEntry("#t", Long.toString(token(next)));
    assertThat(giveBack("a", "next", 0)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
  }

  @Test
  void aGiveBackOfAReentryLeavesTheOuterHoldAndOnlyOnce() {
    acquire("a", "outer", 0, 10_000, false);
    acquire("a", "inner", 1, 10_000, false);
    assertThat(giveBack("a", "inner", 1)).containsExactly(1L, 1L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("1");
    assertThat(giveBack("a", "inner", 1)).as("sent again").containsExactly(0L);
    assertThat(giveBack("a", "outer", 0))
        .as("the outer acquisition's count was rewritten since")
        .containsExactly(0L);
    assertThat(release("a", 1)).containsExactly(1L, 0L);
  }

  @Test
  void aGiveBackAfterTheOwnersReleaseChangesNothing() {
    acquire("a", "first", 0, 10_000, false);
    acquire("a", "second", 1, 10_000, false);
    acquire("a", "abandoned", 2, 10_000, false); // its grant came too late: the client knows 2
    assertThat(release("a", 2)).as("the client's count less one").containsExactly(1L, 1L);
    assertThat(giveBack("a", "abandoned", 2)).containsExactly(0L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("1");
  }

  @Test
  void aGiveBackAfterAConditionsEnqueueChangesNothing() {
    acquire("a", "outer", 0, 10_000, false);
    acquire("a", "abandoned", 1, 10_000, false); // its grant came too late: the client knows 1
    String[] enqueue = {LOCK, LOCK + ":cond:c:waiters", LOCK + ":cond:c:beats", LOCK + ":cond:c:n"};
    assertThat(run("cond-enqueue", enqueue, "a", "w1", "5000")).containsExactly(2L);
    assertThat(giveBack("a", "abandoned", 1)).containsExactly(0L);
    assertThat(redis.hget(LOCK, "a")).as("the await's one hold, to release").isEqualTo("1");
    assertThat(release("a", 1)).containsExactly(1L, 0L);
  }

  @Test
  void aGiveBackThatEndsTheHoldNominatesTheWaitingClientAsAReleaseDoes() {
    acquire("c1:1", "x", 0, 10_000, false);
    refused("c2:1", true);
    assertThat(giveBack("c1:1", "x", 0)).containsExactly(1L, 0L);
    assertThat(redis.hget(LOCK, "#n")).isEqualTo("c2:");
    assertThat(redis.exists(marker("c1:1"))).as("a give-back is no release").isZero();
  }

  @Test
  void aReleaseLeavesTheClientsCountWhateverRedisCounted() {
    acquire("a", 0, 10_000, false);
    acquire("a", 1, 10_000, false);
    acquire("a", 2, 10_000, false);
    redis.hset(LOCK, "a", "1"); // a rewind lost two re-entries
    assertThat(release("a", 3)).containsExactly(1L, 2L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("2");
    assertThat(redis.hexists(LOCK, "#a")).as("no give-back applies to it any more").isFalse();
    redis.hset(LOCK, "a", "7"); // a count nobody knows of
    assertThat(release("a", 2)).containsExactly(1L, 1L);
    assertThat(release("a", 1)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
  }

  @Test
  void aLastReleaseRunAgainFindsItsMarkWhileAHoldLostBeforeItIsReported() {
    acquire("a", 0, 10_000, false);
    assertThat(release("a", 1, "r1")).containsExactly(1L, 0L);
    assertThat(redis.get(marker("a"))).isEqualTo("r1");
    assertThat(redis.pttl(marker("a"))).isBetween(1L, 10_000L);
    acquire("b", 0, 10_000, false); // another owner takes and releases the lock meanwhile
    release("b", 1);
    assertThat(release("a", 1, "r1"))
        .as("run again after its reply was lost")
        .containsExactly(1L, 0L);

    acquire("a", 0, 10_000, false);
    redis.del(LOCK); // lost before the release
    assertThat(release("a", 1, "r2")).containsExactly(0L);
    assertThat(release("a", 1, "r2")).as("and when run again").containsExactly(0L);
  }

  @Test
  void aReentryNeverShortensTheOuterLease() {
    acquire("a", 0, 60_000, false);
    acquire("a", 1, 1_000, false);
    assertThat(redis.pttl(LOCK)).isGreaterThan(50_000L);
    acquire("a", 2, 120_000, false);
    assertThat(redis.pttl(LOCK)).isGreaterThan(110_000L);
  }

  @Test
  void aReplayedPartialReleaseDoesNotCountTwice() {
    acquire("a", 0, 10_000, false);
    acquire("a", 1, 10_000, false);
    acquire("a", 2, 10_000, false);
    assertThat(release("a", 3)).containsExactly(1L, 2L);
    assertThat(release("a", 3)).as("replayed").containsExactly(1L, 2L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("2");
  }

  @Test
  void theLastReleaseDeletesTheLockAndPublishesOnlyIfSomebodyWaited() {
    acquire("a", 0, 10_000, false);
    redis.configResetstat();
    assertThat(release("a", 1)).containsExactly(1L, 0L);
    assertThat(redis.exists(LOCK)).isZero();
    assertThat(redis.info("commandstats")).doesNotContain("cmdstat_publish");

    acquire("a", 0, 10_000, false);
    acquire("b", 0, 10_000, false); // refused: marks
    assertThat(release("a", 1)).containsExactly(1L, 0L);
    assertThat(redis.info("commandstats")).contains("cmdstat_publish:calls=1");
  }

  @Test
  void aNominationGoesToTheNomineesOwnChannelAndToTheSharedOneOnlyWhenNobodyHeardItThere(
      RedisServer server) throws Exception {
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisPubSubConnection<String, String> listener = client.connectPubSub()) {
      listener.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              heard.add(channel + " -> " + message);
            }
          });
      listener.sync().subscribe(CHANNEL); // a client of a previous version: the shared one only
      acquire("c1:1", "acq-1", 0, 10_000, false, true);
      refused("c2:1", true);
      redis.configResetstat();
      assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
      assertThat(heard.poll(5, TimeUnit.SECONDS))
          .as("nobody on c2's own channel: the shared one carries it too")
          .isEqualTo(CHANNEL + " -> released client-1 c2");
      assertThat(redis.info("commandstats")).contains("cmdstat_publish:calls=2");

      listener.sync().subscribe(CHANNEL + ":c3"); // a client that listens on its own channel
      redis.del(LOCK); // c2's turn, which nobody takes here
      acquire("c1:1", "acq-2", 0, 10_000, false, true);
      refused("c3:1", true);
      assertThat(redis.hget(LOCK, "#q")).isEqualTo("c3:");
      redis.configResetstat();
      assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
      assertThat(heard.poll(5, TimeUnit.SECONDS))
          .isEqualTo(CHANNEL + ":c3 -> released client-1 c3");
      assertThat(redis.info("commandstats"))
          .as("heard there: one PUBLISH, one delivery")
          .contains("cmdstat_publish:calls=1");
      assertThat(heard).isEmpty();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aPatternSubscriberDoesNotCountAsTheNomineeHearingItsTurn(RedisServer server)
      throws Exception {
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisPubSubConnection<String, String> previous = client.connectPubSub();
        StatefulRedisPubSubConnection<String, String> monitor = client.connectPubSub()) {
      previous.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              heard.add(channel + " -> " + message);
            }
          });
      previous.sync().subscribe(CHANNEL); // a client of a previous version: the shared one only
      // a monitoring tool (redis-cli, RedisInsight): PUBLISH counts it among a channel's receivers
      monitor.sync().psubscribe("warden*");
      acquire("c1:1", "acq-1", 0, 10_000, false, true);
      refused("c2:1", true);
      assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
      assertThat(heard.poll(5, TimeUnit.SECONDS))
          .as("nobody subscribes c2's own channel (a pattern is not c2): the shared one carries it")
          .isEqualTo(CHANNEL + " -> released client-1 c2");

      previous.sync().subscribe(CHANNEL + ":c3"); // a client that listens on its own channel
      redis.del(LOCK);
      acquire("c1:1", "acq-2", 0, 10_000, false, true);
      refused("c3:1", true);
      redis.configResetstat();
      assertThat(release("c1:1", 1)).containsExactly(1L, 0L);
      assertThat(heard.poll(5, TimeUnit.SECONDS))
          .isEqualTo(CHANNEL + ":c3 -> released client-1 c3");
      assertThat(redis.info("commandstats"))
          .as("c3 heard it on its own channel: one PUBLISH")
          .contains("cmdstat_publish:calls=1");
      assertThat(heard).isEmpty();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void aReleaseByANonOwnerChangesNothing() {
    acquire("a", 0, 10_000, false);
    assertThat(release("b", 1)).containsExactly(0L);
    assertThat(redis.hget(LOCK, "a")).isEqualTo("1");
  }

  @Test
  void renewalResetsTheLeaseOfHeldLocksAndListsOnlyTheOthers() {
    acquire("a", 0, 1_000, false);
    redis.set("warden:{x}:lock", "not a hash");
    run(
        "lock-acquire",
        new String[] {"warden:{z}:lock", "warden:{z}:lock:fence"},
        "d",
        "1000",
        "0",
        "0",
        FENCE_TERMS,
        "acq-d",
        "",
        "0");
    List<Object> reply =
        run(
            "lock-renew",
            new String[] {LOCK, "warden:{y}:lock", "warden:{x}:lock", "warden:{z}:lock"},
            "30000",
            "a",
            "b",
            "c",
            "d");
    assertThat(reply).containsExactly(2L, 3L);
    assertThat(redis.pttl(LOCK)).isGreaterThan(20_000L);
    assertThat(redis.pttl("warden:{z}:lock")).isGreaterThan(20_000L);
    assertThat(redis.get("warden:{x}:lock")).isEqualTo("not a hash");
  }

  @Test
  void aRenewalThatRenewsEveryHoldRepliesWithAnEmptyList() {
    acquire("a", 0, 1_000, false);
    assertThat(run("lock-renew", new String[] {LOCK}, "30000", "a")).isEmpty();
    assertThat(redis.pttl(LOCK)).isGreaterThan(20_000L);
  }

  @Test
  void readRenewalResetsLiveReadHoldsAndListsOnlyTheOthers() {
    String[] first = rwKeys("r1");
    String[] second = rwKeys("r2");
    List<Object> taken = run("rw-read-acquire", first, "a", "1000", "0", FENCE_TERMS, "acq-r");
    assertThat(taken.get(0)).isEqualTo(1L);
    List<Object> reply =
        run(
            "rw-read-renew",
            new String[] {first[1], first[2], first[1], first[2], second[1], second[2]},
            "30000",
            "a",
            "b",
            "a");
    assertThat(reply).containsExactly(2L, 3L);
    assertThat(redis.pttl(first[1])).isGreaterThan(20_000L);
    assertThat(redis.pttl(first[2])).isGreaterThan(20_000L);
    assertThat(redis.zscore(first[2], "a")).isGreaterThan(serverMicros() / 1_000.0 + 20_000);
    assertThat(run("rw-read-renew", new String[] {first[1], first[2]}, "30000", "a")).isEmpty();
  }

  /** The keys of a read-write lock as rw-*-acquire.lua takes them. */
  private static String[] rwKeys(String name) {
    String base = "warden:{" + name + "}:rw";
    return new String[] {
      base + ":write",
      base + ":reads",
      base + ":readers",
      base + ":writers",
      base + ":fence",
      base + ":wanted"
    };
  }

  @Test
  void aWrongTypeUnderTheLockKeyIsAnErrorAndIsNotTouched() {
    redis.set(LOCK, "x");
    assertThatThrownBy(() -> acquire("a", 0, 10_000, false))
        .isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining("WRONGTYPE");
    assertThatThrownBy(() -> run("lock-force-release", new String[] {LOCK}, CHANNEL))
        .hasMessageContaining("WRONGTYPE");
    assertThat(redis.get(LOCK)).isEqualTo("x");
  }

  @Test
  void theScriptsThatOnceRepliedWithABareIntegerReplyWithATable() {
    // the reply convention: every script replies {status, ...}
    String queue = LOCK + ":queue";
    String beats = LOCK + ":beats";
    assertThat(run("lock-force-release", new String[] {LOCK}, CHANNEL)).containsExactly(0L);
    acquire("a", 0, 10_000, false);
    assertThat(run("lock-force-release", new String[] {LOCK}, CHANNEL)).containsExactly(1L);
    assertThat(run("fair-force-release", new String[] {LOCK, queue}, CHANNEL)).containsExactly(0L);
    assertThat(
            run(
                "fair-leave",
                new String[] {LOCK, queue, beats, LOCK + ":entries"},
                "a",
                CHANNEL,
                "x"))
        .containsExactly(0L);
    String[] rw = rwKeys("shapes");
    assertThat(run("rw-force-release", new String[] {rw[0]}, CHANNEL)).containsExactly(0L);
    assertThat(run("rw-writer-leave", new String[] {rw[3], rw[5]}, "a", CHANNEL, "acq-a"))
        .containsExactly(0L);
    String waiters = "warden:{s}:cond:waiters";
    String condBeats = "warden:{s}:cond:beats";
    String arrivals = "warden:{s}:cond:arrivals";
    String[] enqueue = {LOCK, waiters, condBeats, arrivals};
    assertThat(run("cond-enqueue", enqueue, "a", "w1", "5000")).containsExactly(0L);
    acquire("a", 0, 10_000, false);
    assertThat(run("cond-enqueue", enqueue, "a", "w1", "5000")).containsExactly(1L);
    assertThat(run("cond-check", new String[] {waiters, condBeats, arrivals}, "w1", "5000"))
        .containsExactly(0L);
    assertThat(run("cond-signal", new String[] {LOCK, waiters, condBeats}, "b", "0", CHANNEL))
        .containsExactly(-1L);
    assertThat(run("cond-signal", new String[] {LOCK, waiters, condBeats}, "a", "0", CHANNEL))
        .containsExactly(1L);
    assertThat(run("cond-check", new String[] {waiters, condBeats, arrivals}, "w1", "5000"))
        .containsExactly(1L);
    assertThat(run("cond-leave", new String[] {waiters, condBeats}, "w1")).containsExactly(0L);
  }

  @Test
  void aScriptIsLoadedWithThePreludeAndItsShaIsTheOneRedisComputes() {
    Script script = LuaScripts.load("lock-inspect");
    String body = script.body();
    assertThat(body).isEqualTo(Script.prelude() + script.source()).startsWith("-- prelude: ");
    assertThat(script.source()).startsWith("-- lock-inspect: ");
    String sha = Script.sha1(body);
    assertThat(script.sha()).isEqualTo(sha);
    assertThat(redis.scriptLoad(body)).isEqualTo(sha);
    // EVALSHA of that digest runs the script as loaded
    List<Object> reply = redis.evalsha(sha, ScriptOutputType.MULTI, new String[] {LOCK, FENCE});
    assertThat(reply).containsExactly(-2L, -1L);
  }

  /** The token of an acquisition's reply: a decimal string, exact beyond 2^53. */
  private static long token(List<Object> reply) {
    return Long.parseLong(String.valueOf(reply.get(1)));
  }

  private long serverMicros() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
  }

  private List<Object> run(String script, String[] keys, String... args) {
    return LuaScripts.run(redis, script, keys, args);
  }
}
