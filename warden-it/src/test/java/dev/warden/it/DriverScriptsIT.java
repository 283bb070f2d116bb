package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fair, read-write and multi-lock scripts on their own, called directly with EVAL, for what
 * they share with the reentrant lock's (LockScriptsIT): an acquisition sets the owner's count to
 * the client's count plus one (a hold the client does not know of becomes its own, with a new
 * token), a release leaves the client's count less one, a give-back undoes only the acquisition it
 * names, the release that ends a hold leaves a marker for its own replay, and a waiter that gave up
 * leaves only its own queue entry.
 */
@ExtendWith(WardenExtension.class)
class DriverScriptsIT {
  private static final String TERMS = "3600000:0";
  private static final String FAIR = "warden:{d}:fair";
  private static final String QUEUE = FAIR + ":queue";
  private static final String BEATS = FAIR + ":beats";
  private static final String ENTRIES = FAIR + ":entries";
  private static final String CHANNEL = "warden:{d}:released";
  private static final String RW = "warden:{d}:rw";
  private static final String WRITE = RW + ":write";
  private static final String READS = RW + ":reads";
  private static final String READERS = RW + ":readers";
  private static final String WRITERS = RW + ":writers";
  private static final String WANTED = RW + ":wanted";

  private RedisCommands<String, String> redis;

  @BeforeEach
  void connect(RedisServer server) {
    redis = server.redis();
  }

  private List<Object> run(String script, String[] keys, String... args) {
    return LuaScripts.run(redis, script, keys, args);
  }

  // ---- the fair lock ----

  /** {@code waits}: whether it queues when refused; {@code ticket}: its ticket so far, or ''. */
  private List<Object> fairAcquire(
      String owner, String acquisition, int known, boolean waits, String ticket) {
    return run(
        "fair-acquire",
        new String[] {FAIR, FAIR + ":fence", QUEUE, BEATS, FAIR + ":tickets", ENTRIES},
        owner,
        "10000",
        Integer.toString(known),
        TERMS,
        waits ? "1" : "0",
        "3000",
        ticket,
        CHANNEL,
        acquisition);
  }

  /** A release ({@code undo} '') or a give-back of acquisition {@code undo}. */
  private List<Object> fairRelease(String owner, int count, String undo, String releaseId) {
    return fairRelease(owner, count, undo, releaseId, "");
  }

  /**
   * The drop of a hold its client declared lost (LockDriver.dropLost): a release as of a count of
   * one, with no release id, ended only while the hold still has {@code token}.
   */
  private List<Object> fairDrop(String owner, long token) {
    return fairRelease(owner, 1, "", "", Long.toString(token));
  }

  private List<Object> fairRelease(
      String owner, int count, String undo, String releaseId, String token) {
    return run(
        "fair-release",
        new String[] {
          FAIR, QUEUE, BEATS, FAIR + ":fence", FAIR + ":unlocked:" + owner, FAIR + ":entries"
        },
        owner,
        Integer.toString(count),
        CHANNEL,
        "",
        "0",
        "",
        TERMS,
        undo,
        releaseId,
        "10000",
        token);
  }

  private List<Object> fairLeave(String owner, String acquisition) {
    return run(
        "fair-leave", new String[] {FAIR, QUEUE, BEATS, ENTRIES}, owner, CHANNEL, acquisition);
  }

  @Test
  void aFairHoldTheClientDoesNotKnowOfIsTakenOverAndEndsWithItsRelease() {
    long revived = token(fairAcquire("c1:1", "a1", 0, false, ""));
    redis.hset(FAIR, "c1:1", "2");
    List<Object> next = fairAcquire("c1:1", "a2", 0, false, "");
    assertThat(next.get(2)).isEqualTo(1L);
    assertThat(token(next)).isGreaterThan(revived);
    List<Object> replay = fairAcquire("c1:1", "a2", 0, false, "");
    assertThat(replay.get(2)).as("a replay keeps the count").isEqualTo(1L);
    assertThat(token(replay))
        .as("with a new token: its client saw none")
        .isGreaterThan(token(next));
    assertThat(fairRelease("c1:1", 1, "", "r1")).containsExactly(1L, 0L, "");
    assertThat(fairRelease("c1:1", 1, "", "r1")).as("run again").containsExactly(1L, 0L, "");
    assertThat(redis.exists(FAIR)).isZero();
  }

  /**
   * A hold its client declared lost by its lease deadline (renewals may have kept it in Redis) ends
   * by its token; a hold of the same owner taken since, under a new token, is never dropped.
   */
  @Test
  void aFairDropOfALostHoldEndsItOnlyUnderItsToken() {
    long lost = token(fairAcquire("c1:1", "a1", 0, false, ""));
    long taken = token(fairAcquire("c1:1", "a2", 0, false, "")); // the owner, afresh
    assertThat(taken).isGreaterThan(lost);
    assertThat(fairDrop("c1:1", lost)).as("not the hold meant").containsExactly(0L);
    assertThat(redis.hget(FAIR, "c1:1")).isEqualTo("1");
    assertThat(fairDrop("c1:1", taken)).containsExactly(1L, 0L, "");
    assertThat(redis.exists(FAIR)).isZero();
    assertThat(fairDrop("c1:1", taken)).as("sent again").containsExactly(0L);
  }

  @Test
  void aFairGiveBackUndoesOnlyTheAcquisitionItNamesAndWakesTheHeadWhenItEndsTheHold() {
    fairAcquire("c1:1", "x", 0, false, "");
    long ticket = (Long) fairAcquire("c2:1", "w", 0, true, "").get(2);
    assertThat(ticket).isPositive();
    fairAcquire("c1:1", "y", 1, false, "");
    assertThat(fairRelease("c1:1", 0, "x", "")).as("not the last acquisition").containsExactly(0L);
    assertThat(fairRelease("c1:1", 1, "y", "")).containsExactly(1L, 1L, "");
    assertThat(fairRelease("c1:1", 1, "", "r")).containsExactly(1L, 0L, "c2:1");
  }

  @Test
  void aLateLeaveOfAnEndedAcquisitionLeavesTheOwnersNextEntryInTheQueue() {
    fairAcquire("c1:1", "holder", 0, false, "");
    long first = (Long) fairAcquire("c2:1", "w1", 0, true, "").get(2);
    // w1 ended; before its leave reaches Redis the same thread waits again, with no ticket yet
    long second = (Long) fairAcquire("c2:1", "w2", 0, true, "").get(2);
    assertThat(second).as("a new place, not the ended acquisition's").isGreaterThan(first);
    assertThat(fairLeave("c2:1", "w1")).containsExactly(0L);
    assertThat(redis.zscore(QUEUE, "c2:1")).isEqualTo((double) second);
    assertThat(fairAcquire("c2:1", "w2", 0, true, Long.toString(second)).get(2))
        .as("it keeps its place")
        .isEqualTo(second);
    assertThat(fairLeave("c2:1", "w2")).containsExactly(1L);
    assertThat(redis.zscore(QUEUE, "c2:1")).isNull();
  }

  @Test
  void aLeaveTakesOutTheEntryItsAcquisitionMadeAlsoWhenItsReplyWasLost() {
    fairAcquire("c1:1", "holder", 0, false, "");
    fairAcquire("c2:1", "w1", 0, true, ""); // its reply was lost: the client knows no ticket
    assertThat(fairLeave("c2:1", "w1")).containsExactly(1L);
    assertThat(redis.exists(QUEUE)).isZero();
  }

  private List<Object> fairHeartbeat(String... waitersAndAcquisitions) {
    String[] args = new String[1 + waitersAndAcquisitions.length];
    args[0] = "3000";
    System.arraycopy(waitersAndAcquisitions, 0, args, 1, waitersAndAcquisitions.length);
    return run("fair-heartbeat", new String[] {QUEUE, BEATS, FAIR + ":tickets", ENTRIES}, args);
  }

  private static final String[] QUEUE_KEYS = {QUEUE, BEATS, FAIR + ":tickets", ENTRIES};

  @Test
  void aBatchedHeartbeatRefreshesOnlyEntriesMadeForTheirAcquisitionsAndNamesTheOthers() {
    fairAcquire("c1:1", "holder", 0, false, "");
    long first = (Long) fairAcquire("c2:1", "w1", 0, true, "").get(2);
    fairAcquire("c2:2", "w2", 0, true, "");
    fairAcquire("c2:3", "w3", 0, true, "");
    assertThat(fairLeave("c2:3", "w3")).containsExactly(1L);
    redis.zadd(BEATS, 1, "c2:1"); // about to be dropped as dead
    redis.zadd(BEATS, 2, "c2:2");
    for (String key : QUEUE_KEYS) {
      redis.pexpire(key, 1000); // fewer than three heartbeat timeouts left
    }

    long before = serverMillis();
    assertThat(fairHeartbeat("c2:1", "w1", "c2:2", "w2-ended", "c2:3", "w3"))
        .as("the positions of those without an entry made for their acquisition")
        .containsExactly(2L, 3L);
    assertThat(redis.zscore(BEATS, "c2:1")).isGreaterThanOrEqualTo(before + 3000.0);
    assertThat(redis.zscore(BEATS, "c2:2")).as("another acquisition's entry").isEqualTo(2.0);
    assertThat(redis.zscore(QUEUE, "c2:3")).as("never made again").isNull();
    assertThat(redis.zscore(BEATS, "c2:3")).isNull();
    assertThat(redis.hget(ENTRIES, "c2:3")).isNull();
    assertThat(redis.zscore(QUEUE, "c2:1")).isEqualTo((double) first);
    for (String key : QUEUE_KEYS) {
      assertThat(redis.pttl(key)).as("%s lives on", key).isGreaterThan(3 * 3000L);
    }
  }

  @Test
  void aBatchedHeartbeatOfWaitersThatAllLeftChangesNothing() {
    fairAcquire("c1:1", "holder", 0, false, "");
    fairAcquire("c2:1", "w1", 0, true, "");
    fairAcquire("c2:2", "w2", 0, true, "");
    assertThat(fairLeave("c2:1", "w1")).containsExactly(1L);
    redis.pexpire(QUEUE, 1000);
    assertThat(fairHeartbeat("c2:1", "w1")).containsExactly(1L);
    assertThat(redis.zscore(QUEUE, "c2:1")).isNull();
    assertThat(redis.zscore(BEATS, "c2:1")).isNull();
    assertThat(redis.pttl(QUEUE)).as("not renewed for nobody").isLessThanOrEqualTo(1000L);
    assertThat(fairHeartbeat()).as("no waiters").isEmpty();
  }

  private long serverMillis() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  @Test
  void aLateLeaveOfAnAcquisitionThatNeverLearntItsTicketLeavesTheOwnersNextEntry() {
    fairAcquire("c1:1", "holder", 0, false, "");
    fairAcquire("c2:1", "w1", 0, true, ""); // its reply was lost; then it gave up
    long second = (Long) fairAcquire("c2:1", "w2", 0, true, "").get(2);
    assertThat(fairLeave("c2:1", "w1")).containsExactly(0L);
    assertThat(redis.zscore(QUEUE, "c2:1")).isEqualTo((double) second);
  }

  @Test
  void aLateLeaveFromBeforeARestartLeavesTheEntryOfTheOwnersNextAcquisitionUnderTheSameTicket() {
    fairAcquire("c1:1", "holder", 0, false, "");
    long first = (Long) fairAcquire("c2:1", "w1", 0, true, "").get(2);
    // a restart from a file saved before anybody queued: the counter starts again
    redis.del(QUEUE, BEATS, FAIR + ":tickets", ENTRIES);
    long second = (Long) fairAcquire("c2:1", "w2", 0, true, "").get(2);
    assertThat(second).as("the same ticket again").isEqualTo(first);
    assertThat(fairLeave("c2:1", "w1")).as("w1 gave up; its leave arrives now").containsExactly(0L);
    assertThat(redis.zscore(QUEUE, "c2:1")).isEqualTo((double) second);
  }

  // ---- the read-write lock ----

  private static final String[] RW_KEYS = {WRITE, READS, READERS, WRITERS, RW + ":fence", WANTED};

  private List<Object> readAcquire(String owner, String acquisition, int known) {
    return run(
        "rw-read-acquire", RW_KEYS, owner, "10000", Integer.toString(known), TERMS, acquisition);
  }

  private List<Object> readRelease(String owner, int count, String undo, String releaseId) {
    return readRelease(owner, count, undo, releaseId, "");
  }

  /** The drop of a read hold its client declared lost (see {@link #fairDrop}). */
  private List<Object> readDrop(String owner, long token) {
    return readRelease(owner, 1, "", "", Long.toString(token));
  }

  private List<Object> readRelease(
      String owner, int count, String undo, String releaseId, String token) {
    return run(
        "rw-read-release",
        new String[] {READS, READERS, WANTED, READS + ":unlocked:" + owner},
        owner,
        Integer.toString(count),
        CHANNEL,
        undo,
        releaseId,
        "10000",
        token);
  }

  /** {@code knownReads}: the owner's read holds as its client knows them. */
  private List<Object> writeAcquire(
      String owner, String acquisition, int known, boolean waits, int knownReads) {
    return run(
        "rw-write-acquire",
        RW_KEYS,
        owner,
        "10000",
        Integer.toString(known),
        TERMS,
        waits ? "1" : "0",
        "3000",
        acquisition,
        Integer.toString(knownReads));
  }

  private List<Object> writeRelease(String owner, int count, String undo, String releaseId) {
    return writeRelease(owner, count, undo, releaseId, "");
  }

  /** The drop of a write hold its client declared lost (see {@link #fairDrop}). */
  private List<Object> writeDrop(String owner, long token) {
    return writeRelease(owner, 1, "", "", Long.toString(token));
  }

  private List<Object> writeRelease(
      String owner, int count, String undo, String releaseId, String token) {
    return run(
        "rw-write-release",
        new String[] {WRITE, WANTED, WRITE + ":unlocked:" + owner},
        owner,
        Integer.toString(count),
        CHANNEL,
        undo,
        releaseId,
        "10000",
        token);
  }

  @Test
  void aReadHoldTheClientDoesNotKnowOfIsTakenOverWithCountOneAndEndsWithItsRelease() {
    long revived = token(readAcquire("c1:1", "a1", 0));
    redis.hset(READS, "c1:1", "2");
    List<Object> next = readAcquire("c1:1", "a2", 0);
    assertThat(next.get(2)).isEqualTo(1L);
    assertThat(token(next)).isGreaterThan(revived);
    List<Object> replay = readAcquire("c1:1", "a2", 0);
    assertThat(replay.get(2)).as("a replay keeps the count").isEqualTo(1L);
    assertThat(token(replay))
        .as("with a new token: its client saw none")
        .isGreaterThan(token(next));
    assertThat(readRelease("c1:1", 1, "", "r1")).containsExactly(1L, 0L);
    assertThat(readRelease("c1:1", 1, "", "r1")).as("run again").containsExactly(1L, 0L);
    assertThat(readRelease("c1:1", 1, "", "r2")).as("another release").containsExactly(0L);
    assertThat(redis.zcard(READERS)).isZero();
  }

  /** As {@link #aFairDropOfALostHoldEndsItOnlyUnderItsToken}, for read and write holds. */
  @Test
  void aDropOfALostReadOrWriteHoldEndsItOnlyUnderItsToken() {
    long lostRead = token(readAcquire("c1:1", "a1", 0));
    long read = token(readAcquire("c1:1", "a2", 0)); // the owner, afresh
    assertThat(readDrop("c1:1", lostRead)).as("not the hold meant").containsExactly(0L);
    assertThat(redis.hget(READS, "c1:1")).isEqualTo("1");
    assertThat(readDrop("c1:1", read)).containsExactly(1L, 0L);
    assertThat(redis.zcard(READERS)).isZero();
    assertThat(readDrop("c1:1", read)).as("sent again").containsExactly(0L);

    long lostWrite = token(writeAcquire("c1:1", "w1", 0, false, 0));
    long write = token(writeAcquire("c1:1", "w2", 0, false, 0));
    assertThat(writeDrop("c1:1", lostWrite)).as("not the hold meant").containsExactly(0L);
    assertThat(redis.hget(WRITE, "c1:1")).isEqualTo("1");
    assertThat(writeDrop("c1:1", write)).containsExactly(1L, 0L);
    assertThat(redis.exists(WRITE)).isZero();
  }

  @Test
  void aReadGiveBackUndoesOnlyTheAcquisitionItNames() {
    readAcquire("c1:1", "x", 0);
    readAcquire("c1:1", "y", 0); // x was abandoned: the client knows no read hold
    assertThat(readRelease("c1:1", 0, "x", "")).containsExactly(0L);
    assertThat(redis.hget(READS, "c1:1")).isEqualTo("1");
    readAcquire("c1:1", "z", 1);
    assertThat(readRelease("c1:1", 1, "z", "")).containsExactly(1L, 1L);
    assertThat(readRelease("c1:1", 0, "y", "")).as("y's count was rewritten").containsExactly(0L);
    assertThat(readRelease("c1:1", 1, "", "r")).containsExactly(1L, 0L);
  }

  @Test
  void aReadHoldTheClientDoesNotKnowOfDoesNotRefuseItsOwnerTheWriteLock() {
    readAcquire("c1:1", "a1", 0);
    assertThat(writeAcquire("c1:1", "w1", 0, true, 1))
        .as("the client knows it reads: no upgrade")
        .containsExactly(-1L);
    List<Object> write = writeAcquire("c1:1", "w2", 0, true, 0);
    assertThat(write.get(0)).as("the read hold nobody knows of ends").isEqualTo(1L);
    assertThat(redis.hexists(READS, "c1:1")).isFalse();
    assertThat(redis.zcard(READERS)).isZero();
  }

  @Test
  void aWriteHoldTheClientDoesNotKnowOfIsTakenOverAndALastReleaseFindsItsMark() {
    long revived = token(writeAcquire("c1:1", "a1", 0, false, 0));
    redis.hset(WRITE, "c1:1", "3");
    List<Object> next = writeAcquire("c1:1", "a2", 0, false, 0);
    assertThat(next.get(2)).isEqualTo(1L);
    assertThat(token(next)).isGreaterThan(revived);
    assertThat(writeRelease("c1:1", 0, "a1", ""))
        .as("a1's count was rewritten")
        .containsExactly(0L);
    assertThat(writeRelease("c1:1", 1, "", "r1")).containsExactly(1L, 0L);
    assertThat(writeRelease("c1:1", 1, "", "r1")).as("run again").containsExactly(1L, 0L);
    writeAcquire("c1:1", "a3", 0, false, 0);
    redis.del(WRITE); // lost before the release
    assertThat(writeRelease("c1:1", 1, "", "r2")).containsExactly(0L);
  }

  @Test
  void aLateWriterLeaveLeavesTheOwnersNextWaitingEntry() {
    readAcquire("c9:1", "reader", 0);
    assertThat(writeAcquire("c1:1", "w1", 0, true, 0).get(0)).isEqualTo(0L);
    // w1 ended; before its leave reaches Redis the same thread waits again
    assertThat(writeAcquire("c1:1", "w2", 0, true, 0).get(0)).isEqualTo(0L);
    assertThat(run("rw-writer-leave", new String[] {WRITERS, WANTED}, "c1:1", CHANNEL, "w1"))
        .containsExactly(1L);
    assertThat(redis.zrange(WRITERS, 0, -1)).containsExactly("c1:1/w2");
    assertThat(readAcquire("c9:2", "new-reader", 0).get(0))
        .as("the waiting writer still keeps new readers out")
        .isEqualTo(0L);
    assertThat(run("rw-writer-leave", new String[] {WRITERS, WANTED}, "c1:1", CHANNEL, "w2"))
        .containsExactly(1L);
    assertThat(redis.exists(WRITERS)).isZero();
  }

  // ---- the multi-lock ----

  @Test
  void aMultiLockPartTheClientDoesNotKnowOfIsTakenOverWithCountOne() {
    String lock = "warden:{d}:lock";
    String[] keys = {lock, lock + ":fence"};
    long revived = token(run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g1", "0"));
    redis.hset(lock, "c1:1", "2");
    List<Object> next = run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g2", "0");
    assertThat(next.get(2)).isEqualTo(1L);
    assertThat(token(next)).isGreaterThan(revived);
    List<Object> reentry = run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g3", "1");
    assertThat(reentry.get(2)).isEqualTo(2L);
    assertThat(reentry.get(1)).as("a re-entry keeps the token").isEqualTo(next.get(1));
  }

  @Test
  void aMultiLockRefusalSaysWhenAnEarlierRunOfTheSameAcquisitionHoldsParts() {
    String a = "warden:{d}:lock-a";
    String b = "warden:{d}:lock-b";
    String[] keys = {a, a + ":fence", b, b + ":fence"};
    run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g1", "0", "0"); // its reply is lost
    redis.del(a); // part a's lease ran out, and another owner took it
    run(
        "lock-acquire",
        new String[] {a, a + ":fence"},
        "c2:1",
        "10000",
        "0",
        "0",
        TERMS,
        "x",
        "c2:",
        "0");
    List<Object> retry = run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g1", "0", "0");
    assertThat(retry.get(0)).isEqualTo(0L);
    assertThat(retry.get(1)).as("refused by part a").isEqualTo(1L);
    assertThat(retry.get(3)).as("g1 holds part b: the client gives it back").isEqualTo(1L);
    assertThat(run("lock-acquire-all", keys, "c1:1", "10000", TERMS, "g2", "0", "0").get(3))
        .as("another acquisition of the owner holds nothing of it")
        .isEqualTo(0L);
  }

  /** The token of an acquisition's reply: a decimal string, exact beyond 2^53. */
  private static long token(List<Object> reply) {
    assertThat(reply.get(0)).as("acquired: %s", reply).isEqualTo(1L);
    return Long.parseLong(String.valueOf(reply.get(1)));
  }
}
