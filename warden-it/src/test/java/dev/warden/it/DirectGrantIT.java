package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.internal.base.Settings;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The direct grant (lock-release.lua, 'Grants'): a last release gives the reentrant lock to the
 * registered waiter of the next waiting client in its own script, and that client completes the
 * acquisition from the message, with no script of its own; a grant nobody takes is given back by
 * its acquisition id and token, a grant to a process that is gone ends with the grant lease, a lost
 * message costs one re-check, and a stale give-back never ends a hold taken since.
 */
@ExtendWith(WardenExtension.class)
class DirectGrantIT {
  private static final String NAME = "granted";
  private static final String LOCK = "warden:{" + NAME + "}:lock";
  private static final String FENCE = LOCK + ":fence";
  private static final String CHANNEL = LOCK + ":released";
  private static final String TERMS = Settings.FENCE_RETENTION_MILLIS + ":0";
  private static final String LEASE = "30000";

  // ---- through the API ----

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aCrossClientHandOffCostsTheReleaseAndAConfirmationAndNoAcquisitionScript(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock held = wardens.create().lock(NAME);
    held.lock();
    DistributedLock waiter = wardens.create().lock(NAME);
    CompletableFuture<Long> granted = new CompletableFuture<>();
    CompletableFuture<Void> counted = new CompletableFuture<>();
    CompletableFuture<Void> holding = Waiters.holdingUntil(waiter, granted, counted, 10);
    awaitRegistration(redis);
    redis.redis().configResetstat();

    held.unlock();

    long token = granted.get(10, TimeUnit.SECONDS);
    // confirmed: its first renewal set the full lease
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().pttl(LOCK) > Settings.GRANT_LEASE_MILLIS);
    Map<String, Long> calls = redis.commandCalls();
    // after: the release (which granted) and the confirmation (lock-renew); the waiter ran no
    // lock-acquire
    assertThat(calls.get("evalsha")).isEqualTo(2L);
    assertThat(calls.get("publish")).isEqualTo(1L); // the grant, to the waiter's client alone
    assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(token));
    assertThat(redis.redis().hkeys(LOCK)).noneMatch(field -> field.startsWith("#g"));

    // before (today's nomination, which a waiter with an explicit lease still gets): the release,
    // the nominee's own acquisition (and its release)
    DistributedLock explicit = wardens.create().lock(NAME);
    CompletableFuture<Boolean> nominated =
        Blocking.inThread(
            () -> {
              boolean in = explicit.tryLock(10, 20, TimeUnit.SECONDS);
              explicit.unlock();
              return in;
            });
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().hget(LOCK, "#q") != null);
    redis.redis().configResetstat();
    counted.complete(null);
    holding.get(10, TimeUnit.SECONDS);
    assertThat(nominated.get(10, TimeUnit.SECONDS)).isTrue();
    Map<String, Long> before = redis.commandCalls();
    // the nominee's acquisition mints its token (TIME: prelude.lua's mint_token); a nomination
    // mints none
    assertThat(before.get("time")).as("the nominee's acquisition").isGreaterThanOrEqualTo(1L);
    assertThat(before.get("evalsha")).isGreaterThanOrEqualTo(3L);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aGrantToAnAcquisitionItsClientNoLongerHasIsGivenBackAtOnce(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Warden holding = wardens.create();
    DistributedLock held = holding.lock(NAME);
    held.lock();
    DistributedLock waiter = wardens.create().lock(NAME);
    CompletableFuture<Long> waited = Waiters.millisToLockAndUnlock(waiter);
    String client = clientOf(awaitRegistration(redis)) + ":";
    // an acquisition of the waiting client that ended (gave up, timed out) registered last: the
    // release grants to it, and that client, which does not have it, gives it back
    RedisCommands<String, String> r = redis.redis();
    assertThat(acquire(r, client + "gone", "a-gone", "0", "1", "1")).element(0).isEqualTo(0L);
    long started = System.nanoTime();

    held.unlock();

    Awaitility.await().atMost(Duration.ofSeconds(5)).until(waited::isDone);
    // given back at once: the client's real waiter got in long before the grant lease ran out
    // (without the give-back it waits for the grant lease, 3 s)
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
        .isLessThan(Settings.GRANT_LEASE_MILLIS / 2);
    assertThat(waited.get()).isPositive();
    assertThat(r.hexists(LOCK, client + "gone")).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aGrantToAnAcquisitionThatEndedIsGivenBackWhenItsClientNowWaitsWithoutRegistering(
      RedisServer redis, WardenFactory wardens) throws Exception {
    // an explicit lease does not register: a new topic, in which no acquisition that registers
    // ever enlisted
    aGrantToAnEndedAcquisitionIsGivenBackByALaterWaiterOfItsClient(
        redis,
        wardens,
        waiting -> {
          DistributedLock explicit = waiting.lock(NAME);
          explicit.lock(20, TimeUnit.SECONDS);
          explicit.unlock();
        },
        NAME);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aGrantToAnAcquisitionThatEndedIsGivenBackWhenItsClientNowWaitsInAMultiLock(
      RedisServer redis, WardenFactory wardens) throws Exception {
    // a multi-lock refused by this lock waits on its channel, in a new topic only it joined (the
    // second name is of the same slot: one group)
    aGrantToAnEndedAcquisitionIsGivenBackByALaterWaiterOfItsClient(
        redis,
        wardens,
        waiting -> {
          DistributedLock group =
              waiting.multiLock(waiting.lock(NAME), waiting.lock("granted-29590"));
          group.lock();
          group.unlock();
        },
        "the multi-lock");
  }

  /** How a later waiter of the client waits: it takes the lock, then releases it. */
  private interface LaterWaiter {
    void lockAndUnlock(Warden waiting) throws Exception;
  }

  /**
   * A waiter that registers gives up, and its client drops the lock's subscription (its topic goes
   * after the linger time): its registration stays in the hash. The same client then waits again in
   * a way that does not register ({@code later}); the holder's release grants to the stale
   * registration, which must be given back at once, waking the later waiter. Without the give-back
   * the lock stays with the grant for 3 s, and the waiter, told nothing, waits for its re-check
   * (the holder's lease it was refused with, 30 s).
   */
  private static void aGrantToAnEndedAcquisitionIsGivenBackByALaterWaiterOfItsClient(
      RedisServer redis, WardenFactory wardens, LaterWaiter later, String what) throws Exception {
    DistributedLock held = wardens.create().lock(NAME);
    held.lock();
    Warden waiting = wardens.create();
    DistributedLock timedOut = waiting.lock(NAME);
    assertThat(
            Blocking.inThread(() -> timedOut.tryLock(100, TimeUnit.MILLISECONDS))
                .get(10, TimeUnit.SECONDS))
        .isFalse();
    String registration = awaitRegistration(redis);
    RedisCommands<String, String> r = redis.redis();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.pubsubChannels("warden:{" + NAME + "}*").isEmpty());
    CompletableFuture<Long> waited =
        Blocking.inThread(
            () -> {
              long started = System.nanoTime();
              later.lockAndUnlock(waiting);
              return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            });
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !r.pubsubChannels("warden:{" + NAME + "}*").isEmpty());
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.hget(LOCK, "#q") != null && r.hget(LOCK, "#q").contains(":"));
    long started = System.nanoTime();

    held.unlock(); // grants to the registration of the waiter that gave up

    assertThat(waited.get(10, TimeUnit.SECONDS)).as(what + " is in").isPositive();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
        .as("given back at once, not at the end of the grant lease")
        .isLessThan(Settings.GRANT_LEASE_MILLIS / 2);
    assertThat(r.hexists(LOCK, ownerOf(registration))).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 200)
  void aGrantToAProcessThatIsGoneEndsWithTheGrantLease(RedisServer redis, WardenFactory wardens)
      throws Exception {
    GrantScenarios.aGrantToAProcessThatIsGoneEndsWithTheGrantLease(REENTRANT, redis, wardens);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aLostGrantMessageCostsTheWaiterOneRecheck(RedisServer redis, WardenFactory wardens)
      throws Exception {
    GrantScenarios.aLostGrantMessageCostsTheWaiterOneRecheck(REENTRANT, redis, wardens);
  }

  @Test
  void aReleaseWhoseReplyIsLostAfterItGrantedFindsItsMarkerAndTheGrantStands(
      RedisServer redis, WardenFactory wardens) throws Exception {
    GrantScenarios.aReleaseWhoseReplyIsLostAfterItGrantedFindsItsMarkerAndTheGrantStands(
        REENTRANT, redis, wardens);
  }

  // ---- the scripts ----

  @Test
  void aGrantRecordsTheWaitersAcquisitionSoThatItsReplayFindsIt(RedisServer redis)
      throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub();
        StatefulRedisPubSubConnection<String, String> c3 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      c3.sync().subscribe(CHANNEL + ":c3");
      assertThat(acquire(r, "c1:1", "h1", "0", "0", "0")).element(0).isEqualTo(1L);
      assertThat(acquire(r, "c2:1", "a2", "0", "1", "1")).element(0).isEqualTo(0L);
      assertThat(acquire(r, "c3:1", "a3", "0", "1", "1")).element(0).isEqualTo(0L);
      assertThat(r.hget(LOCK, "#gc2:")).isEqualTo(LEASE + " a2 c2:1");

      assertThat(release(r, "c1:1", "r1")).isEqualTo(List.of(1L, 0L, 1L));

      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.hget(LOCK, "#a")).isEqualTo("a2");
      assertThat(r.hget(LOCK, "#c")).isEqualTo("c2:");
      assertThat(r.hget(LOCK, "#q")).isEqualTo("c3:");
      assertThat(r.hexists(LOCK, "c1:1")).isFalse();
      assertThat(r.hexists(LOCK, "#gc2:")).isFalse();
      assertThat(r.hget(LOCK, "#gc3:")).as("the next client's stays").isEqualTo(LEASE + " a3 c3:1");
      assertThat(r.pttl(LOCK)).isBetween(1L, Settings.GRANT_LEASE_MILLIS);
      long token = Long.parseLong(r.hget(LOCK, "#t"));

      // the release replayed (its reply lost): its marker says it ended the hold; nothing more
      assertThat(release(r, "c1:1", "r1")).isEqualTo(List.of(1L, 0L));
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");

      // the waiter's own attempt (its message lost) is a replay: it holds once, with a new token
      List<Object> replay = acquire(r, "c2:1", "a2", "0", "1", "1");
      assertThat(replay.get(0)).isEqualTo(1L);
      assertThat(Long.parseLong(String.valueOf(replay.get(1)))).isGreaterThan(token);
      assertThat(replay.get(2)).isEqualTo(1L);

      // a give-back of the grant (the message came late, after the replay) changes nothing
      assertThat(giveBackGrant(r, "c2:1", "a2", token)).isEqualTo(List.of(0L));
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");

      // the next release grants to the next client
      assertThat(release(r, "c2:1", "r2")).isEqualTo(List.of(1L, 0L, 1L));
      assertThat(r.hget(LOCK, "c3:1")).isEqualTo("1");
      assertThat(r.hexists(LOCK, "#q")).isFalse();
      assertThat(r.hexists(LOCK, "#o")).isFalse();
      assertThat(r.hexists(LOCK, "#w")).as("nobody else is known to wait").isFalse();
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void aGiveBackOfAGrantNeverEndsTheSameOwnersNextHold(RedisServer redis) throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      assertThat(acquire(r, "c1:1", "h1", "0", "0", "0")).element(0).isEqualTo(1L);
      assertThat(acquire(r, "c2:1", "a2", "0", "1", "1")).element(0).isEqualTo(0L);
      assertThat(release(r, "c1:1", "r1")).isEqualTo(List.of(1L, 0L, 1L));
      long token = Long.parseLong(r.hget(LOCK, "#t"));

      // the acquisition gave up as the grant landed; the same thread acquires again first
      List<Object> next = acquire(r, "c2:1", "b2", "0", "1", "1");
      assertThat(next.get(0)).isEqualTo(1L);
      assertThat(Long.parseLong(String.valueOf(next.get(1)))).isGreaterThan(token);

      // then the give-back of the grant arrives: the hold is the next acquisition's, it stays
      assertThat(giveBackGrant(r, "c2:1", "a2", token)).isEqualTo(List.of(0L));
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.hget(LOCK, "#a")).isEqualTo("b2");

      // the other order: the give-back first ends the grant, and the next acquisition takes the
      // lock afresh
      assertThat(release(r, "c2:1", "r2")).element(0).isEqualTo(1L);
      assertThat(acquire(r, "c1:1", "h2", "0", "0", "0")).element(0).isEqualTo(1L);
      assertThat(acquire(r, "c2:1", "a3", "0", "1", "1")).element(0).isEqualTo(0L);
      assertThat(release(r, "c1:1", "r3")).isEqualTo(List.of(1L, 0L, 1L));
      token = Long.parseLong(r.hget(LOCK, "#t"));
      assertThat(giveBackGrant(r, "c2:1", "a3", token)).isEqualTo(List.of(1L, 0L));
      assertThat(r.exists(LOCK)).isZero();
      assertThat(acquire(r, "c2:1", "b3", "0", "1", "1")).element(0).isEqualTo(1L);
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void nobodyListeningOrTheRecordingTwinMeansTheNominationAsBefore(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    // registered, but its client does not listen on its channel (gone, or unsubscribed)
    assertThat(acquire(r, "c1:1", "h1", "0", "0", "0")).element(0).isEqualTo(1L);
    assertThat(acquire(r, "c2:1", "a2", "0", "1", "1")).element(0).isEqualTo(0L);
    assertThat(release(r, "c1:1", "r1")).isEqualTo(List.of(1L, 0L));
    assertThat(r.hget(LOCK, "#n")).isEqualTo("c2:");
    assertThat(r.hexists(LOCK, "c2:1")).isFalse();

    // the client wake-up mode's recording twin never grants: it cannot know who will hear
    r.del(LOCK);
    assertThat(acquire(r, "c1:1", "h2", "0", "0", "0")).element(0).isEqualTo(1L);
    assertThat(acquire(r, "c2:1", "a3", "0", "1", "1")).element(0).isEqualTo(0L);
    List<Object> recorded =
        r.eval(
            LuaScripts.load("lock-release").recording().body(),
            ScriptOutputType.MULTI,
            new String[] {LOCK, LOCK + ":unlocked:c1:1", FENCE},
            releaseArgs("c1:1", "1", "", "r2", ""));
    assertThat(recorded).isNotEmpty();
    assertThat(r.hget(LOCK, "#n")).isEqualTo("c2:");
    assertThat(r.hexists(LOCK, "c2:1")).isFalse();
  }

  @Test
  void onlyAFirstAcquisitionThatWaitsRegisters(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    assertThat(acquire(r, "c1:1", "h1", "0", "0", "0")).element(0).isEqualTo(1L);
    assertThat(acquire(r, "c2:1", "t2", "0", "0", "1")).element(0).isEqualTo(0L); // a try
    assertThat(acquire(r, "c2:1", "k2", "1", "1", "1")).element(0).isEqualTo(0L); // knew a hold
    assertThat(acquire(r, "c2:1", "n2", "0", "1", "0")).element(0).isEqualTo(0L); // no grants
    assertThat(r.hexists(LOCK, "#gc2:")).isFalse();
    assertThat(acquire(r, "c2:2", "w2", "0", "1", "1")).element(0).isEqualTo(0L);
    assertThat(r.hget(LOCK, "#gc2:")).isEqualTo(LEASE + " w2 c2:2");
  }

  // ---- helpers ----

  /** The reentrant lock, for the scenarios it shares with the fair lock (FairGrantIT). */
  private static final GrantScenarios.GrantedLock REENTRANT =
      new GrantScenarios.GrantedLock(
          LOCK,
          CHANNEL,
          "lock-release",
          warden -> warden.lock(NAME),
          (r, owner, acquisition, waits) ->
              waits
                  ? acquire(r, owner, acquisition, "0", "1", "1")
                  : acquire(r, owner, acquisition, "0", "0", "0"),
          redis -> ownerOf(awaitRegistration(redis)),
          DirectGrantIT::awaitAnotherClientRegistered,
          owner -> new String[] {LOCK, LOCK + ":unlocked:" + owner, FENCE},
          (owner, releaseId) -> releaseArgs(owner, "1", "", releaseId, ""),
          (released, waiter) -> assertThat(released).isEqualTo(List.of(1L, 0L, 1L)));

  /** Waits until a client other than {@code first}'s registered: the lock's next client. */
  private static void awaitAnotherClientRegistered(RedisServer redis, String first) {
    String firstClient = first.substring(0, first.indexOf(':') + 1);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              String next = redis.redis().hget(LOCK, "#q");
              return next != null && !next.equals(firstClient);
            });
  }

  /** Waits until a waiter registered for a direct grant; returns its registration. */
  private static String awaitRegistration(RedisServer redis) {
    String[] registration = new String[1];
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              for (Map.Entry<String, String> field : redis.redis().hgetall(LOCK).entrySet()) {
                if (field.getKey().startsWith("#g")) {
                  registration[0] = field.getValue();
                  return true;
                }
              }
              return false;
            });
    return registration[0];
  }

  /** The owner id in a registration ('<lease> <acquisition id> <owner id>'). */
  private static String ownerOf(String registration) {
    return registration.substring(registration.indexOf(' ', registration.indexOf(' ') + 1) + 1);
  }

  /** The client id in a registration. */
  private static String clientOf(String registration) {
    String owner = ownerOf(registration);
    return owner.substring(0, owner.indexOf(':'));
  }

  private static List<Object> acquire(
      RedisCommands<String, String> r,
      String owner,
      String acquisition,
      String known,
      String willWait,
      String registers) {
    return LuaScripts.run(
        r,
        "lock-acquire",
        new String[] {LOCK, FENCE},
        owner,
        LEASE,
        known,
        "0",
        TERMS,
        acquisition,
        owner.substring(0, owner.indexOf(':') + 1),
        willWait,
        "0", // no hints (ARGV[9], ARGV[10]): every attempt takes the full path
        "",
        registers);
  }

  private static List<Object> release(RedisCommands<String, String> r, String owner, String id) {
    return LuaScripts.run(
        r,
        "lock-release",
        new String[] {LOCK, LOCK + ":unlocked:" + owner, FENCE},
        releaseArgs(owner, "1", "", id, ""));
  }

  private static List<Object> giveBackGrant(
      RedisCommands<String, String> r, String owner, String acquisition, long token) {
    return LuaScripts.run(
        r,
        "lock-release",
        new String[] {LOCK, LOCK + ":unlocked:" + owner, FENCE},
        releaseArgs(owner, "0", acquisition, "", Long.toString(token)));
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
