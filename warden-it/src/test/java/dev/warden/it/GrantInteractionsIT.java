package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.Settings;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The direct grant (lock-release.lua, 'Grants') against the other scripts that write the reentrant
 * lock's hash: the multi-lock (lock-acquire-all.lua, whose holds record no client), a row of local
 * hand-offs (lock-transfer.lua), and force-unlock (lock-force-release.lua). Script calls as
 * ReentrantDriver and GroupClaim send them; each client that waits listens on its own channel.
 */
@ExtendWith(WardenExtension.class)
class GrantInteractionsIT {
  private static final String LOCK = "warden:{interplay}:lock";
  private static final String FENCE = LOCK + ":fence";
  private static final String CHANNEL = LOCK + ":released";
  private static final String TERMS = Settings.FENCE_RETENTION_MILLIS + ":0";
  private static final String LEASE = "30000";

  /**
   * A multi-lock's part records no client ('#c'), so a waiter of the multi-lock's own client that
   * asked Redis (before its client learnt of the multi-lock's hold) is refused as by another
   * client's holder, and registers. Its client then hands it the part (a transfer keeps the
   * registration). Its own last release must not grant the lock back to itself, under an
   * acquisition that is over: the lock would stay held by nobody until its client gives the grant
   * back.
   */
  @Test
  void aLastReleaseNeverGrantsTheLockBackToItsOwnOwner(RedisServer redis) throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c1 = raw.connectPubSub()) {
      c1.sync().subscribe(CHANNEL + ":c1"); // c1 has waiters on the lock
      assertThat(acquireAll(r, "c1:1", "g1")).element(0).isEqualTo(1L);
      assertThat(acquire(r, "c1:2", "a2", "1", "1")).element(0).isEqualTo(0L);
      assertThat(r.hget(LOCK, "#gc1:")).isEqualTo(LEASE + " a2 c1:2");

      assertThat(transfer(r, "c1:1", "r1", "c1:2", "a2")).element(0).isEqualTo(1L);
      assertThat(release(r, "c1:2", "r2")).isEqualTo(List.of(1L, 0L));

      assertThat(r.hexists(LOCK, "c1:2")).as("the releaser holds nothing").isFalse();
      assertThat(r.hexists(LOCK, "#t")).as("nobody holds it").isFalse();
      assertThat(r.hget(LOCK, "#n")).as("its client's turn, as before grants").isEqualTo("c1:");
    } finally {
      raw.shutdown();
    }
  }

  /** A row of hand-offs keeps the other client's registration; the grant's token is the highest. */
  @Test
  void aRowOfHandOffsKeepsTheRegistrationAndTheGrantsTokenRises(RedisServer redis)
      throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      long first = token(acquire(r, "c1:1", "h1", "0", "0"));
      assertThat(acquire(r, "c2:1", "a2", "1", "1")).element(0).isEqualTo(0L);
      long handed = token(transfer(r, "c1:1", "r1", "c1:2", "h2"));
      long again = token(transfer(r, "c1:2", "r2", "c1:3", "h3"));
      assertThat(handed).isGreaterThan(first);
      assertThat(again).isGreaterThan(handed);
      assertThat(r.hget(LOCK, "#gc2:")).isEqualTo(LEASE + " a2 c2:1");

      assertThat(release(r, "c1:3", "r3")).isEqualTo(List.of(1L, 0L, 1L));
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(Long.parseLong(r.hget(LOCK, "#t"))).isGreaterThan(again);

      // a stale transfer from an earlier holder of the row (a retry) takes nothing from the grant
      assertThat(transfer(r, "c1:2", "r2", "c1:4", "h4")).containsExactly(0L);
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.hexists(LOCK, "c1:4")).isFalse();
    } finally {
      raw.shutdown();
    }
  }

  /**
   * Force-unlock during a grant nobody took: the grant's give-back and its acquisition's replay
   * change nothing of the next holder's hold, and the tokens keep rising.
   */
  @Test
  void forceUnlockDuringAGrantLeavesTheNextHolderAlone(RedisServer redis) throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      acquire(r, "c1:1", "h1", "0", "0");
      acquire(r, "c2:1", "a2", "1", "1");
      assertThat(release(r, "c1:1", "r1")).isEqualTo(List.of(1L, 0L, 1L));
      long granted = Long.parseLong(r.hget(LOCK, "#t"));

      assertThat(LuaScripts.run(r, "lock-force-release", new String[] {LOCK}, CHANNEL))
          .containsExactly(1L);
      long next = token(acquire(r, "c3:1", "h3", "0", "0"));
      assertThat(next).isGreaterThan(granted);

      assertThat(giveBackGrant(r, "c2:1", "a2", granted)).containsExactly(0L);
      assertThat(acquire(r, "c2:1", "a2", "1", "1")).element(0).isEqualTo(0L); // the replay
      assertThat(r.hget(LOCK, "c3:1")).isEqualTo("1");
      assertThat(Long.parseLong(r.hget(LOCK, "#t"))).isEqualTo(next);
    } finally {
      raw.shutdown();
    }
  }

  // ---- helpers ----

  private static long token(List<Object> reply) {
    assertThat(reply.get(0)).as("acquired: %s", reply).isEqualTo(1L);
    return Long.parseLong(String.valueOf(reply.get(1)));
  }

  private static List<Object> acquire(
      RedisCommands<String, String> r,
      String owner,
      String acquisition,
      String willWait,
      String registers) {
    return LuaScripts.run(
        r,
        "lock-acquire",
        new String[] {LOCK, FENCE},
        owner,
        LEASE,
        "0",
        "0",
        TERMS,
        acquisition,
        owner.substring(0, owner.indexOf(':') + 1),
        willWait,
        "0",
        "",
        registers);
  }

  private static List<Object> acquireAll(RedisCommands<String, String> r, String owner, String id) {
    return LuaScripts.run(
        r, "lock-acquire-all", new String[] {LOCK, FENCE}, owner, LEASE, TERMS, id, "0");
  }

  private static List<Object> transfer(
      RedisCommands<String, String> r, String from, String releaseId, String to, String id) {
    return LuaScripts.run(
        r,
        "lock-transfer",
        new String[] {LOCK, FENCE, marker(from)},
        from,
        to,
        LEASE,
        id,
        TERMS,
        releaseId,
        "60000");
  }

  private static List<Object> release(RedisCommands<String, String> r, String owner, String id) {
    return LuaScripts.run(
        r,
        "lock-release",
        new String[] {LOCK, marker(owner), FENCE},
        releaseArgs(owner, "1", "", id, ""));
  }

  private static List<Object> giveBackGrant(
      RedisCommands<String, String> r, String owner, String acquisition, long token) {
    return LuaScripts.run(
        r,
        "lock-release",
        new String[] {LOCK, marker(owner), FENCE},
        releaseArgs(owner, "0", acquisition, "", Long.toString(token)));
  }

  private static String marker(String owner) {
    return LOCK + ":unlocked:" + owner;
  }

  /** lock-release's arguments as ReentrantDriver sends them. */
  private static String[] releaseArgs(
      String owner, String count, String undo, String releaseId, String grantToken) {
    return new String[] {
      owner,
      count,
      CHANNEL,
      "released " + owner.substring(0, owner.indexOf(':')),
      "0",
      Long.toString(Settings.CROSS_CLIENT_TURN_MILLIS),
      Long.toString(Settings.CROSS_CLIENT_RESERVATION_MILLIS),
      Long.toString(Settings.NOMINATED_LOCK_MILLIS),
      undo,
      releaseId,
      "60000",
      Long.toString(Settings.GRANT_LEASE_MILLIS),
      TERMS,
      grantToken
    };
  }
}
