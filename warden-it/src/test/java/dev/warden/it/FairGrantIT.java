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
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fair lock's direct grant (fair-release.lua, 'Grants'): a last release whose live head is
 * another client's waiter gives it the lock in its own script, and that client completes the
 * acquisition from the message, with no script of its own; a grant nobody takes is given back by
 * its acquisition id and token (and that give-back grants on), a grant to a process that is gone
 * ends with the grant lease, a lost message costs one re-check, a lost reply of the release is
 * found by its marker, a stale give-back never ends a hold taken since, and the queue's order is
 * kept.
 */
@ExtendWith(WardenExtension.class)
class FairGrantIT {
  private static final String NAME = "fairgrant";
  private static final String LOCK = "warden:{" + NAME + "}:fair";
  private static final String FENCE = LOCK + ":fence";
  private static final String QUEUE = LOCK + ":queue";
  private static final String BEATS = LOCK + ":beats";
  private static final String TICKETS = LOCK + ":tickets";
  private static final String ENTRIES = LOCK + ":entries";
  private static final String CHANNEL = LOCK + ":released";
  private static final String TERMS = Settings.FENCE_RETENTION_MILLIS + ":0";
  private static final String LEASE = "30000";

  // ---- through the API ----

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aCrossClientHandOffIsTheReleaseAloneOnTheWaitersPathAndAConfirmationAfter(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock held = wardens.create().fairLock(NAME);
    held.lock();
    Warden waiting = wardens.create();
    DistributedLock waiter = waiting.fairLock(NAME);
    CompletableFuture<Long> granted = new CompletableFuture<>();
    CompletableFuture<Void> counted = new CompletableFuture<>();
    CompletableFuture<Void> holding = Waiters.holdingUntil(waiter, granted, counted, 10);
    String record = awaitQueued(redis, 1).get(0);
    assertThat(record).as("it takes grants: its lease is recorded").contains(" ");
    awaitParked(waiting); // subscribed, and its attempt after the subscription made
    startCounting(redis);

    held.unlock();

    long token = granted.get(10, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> redis.redis().pttl(LOCK) > Settings.GRANT_LEASE_MILLIS);
    Map<String, Long> after = scriptCalls(redis);
    // after: the release, which granted, and the confirmation (lock-renew), off the waiter's path
    assertThat(after).as("after").containsEntry("fair-release", 1L).containsEntry("lock-renew", 1L);
    List<String> grants = published(redis, "granted ");
    assertThat(grants).as("the grant, to the waiter's client alone").hasSize(1);
    // the waiter holds the grant's token: it took the lock from the message, not by an attempt of
    // its own (which mints a new one)
    assertThat(grants.get(0)).startsWith("granted " + token + " ");
    assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(token));
    assertThat(redis.redis().zcard(QUEUE)).isZero();

    // before (the wake-up, which a waiter with an explicit lease still gets): the release, then
    // the head's own fair-acquire, on its path
    Warden explicitWaiting = wardens.create();
    DistributedLock explicit = explicitWaiting.fairLock(NAME);
    CompletableFuture<Long> woken =
        Blocking.inThread(
            () -> {
              assertThat(explicit.tryLock(10, 20, TimeUnit.SECONDS)).isTrue();
              try {
                return explicit.fencingToken();
              } finally {
                explicit.unlock();
              }
            });
    assertThat(awaitQueued(redis, 1).get(0)).as("no lease recorded").doesNotContain(" ");
    awaitParked(explicitWaiting);
    startCounting(redis);
    counted.complete(null);
    holding.get(10, TimeUnit.SECONDS);
    long explicitToken = woken.get(10, TimeUnit.SECONDS);
    Map<String, Long> before = scriptCalls(redis);
    // the release (which wakes the head), the head's fair-acquire (which mints its token), then
    // its own release; no confirmation
    assertThat(before)
        .as("before")
        .containsEntry("fair-release", 2L)
        .doesNotContainKey("lock-renew");
    assertThat(before.get("fair-acquire")).as("before").isPositive();
    assertThat(published(redis, "w:")).as("the wake-up, to the head's client alone").hasSize(1);
    assertThat(published(redis, "granted ")).isEmpty();
    assertThat(explicitToken).isGreaterThan(token);
  }

  @Test
  void perCrossClientHandOffTheGrantRunsTheseCommandsWhereTheWakeUpRunsThose(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      // after: the release grants; the waiter's client confirms with a renewal (off its path)
      assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a2", LEASE, "1")).element(0).isEqualTo(0L);
      startCounting(redis);
      assertThat(release(r, "c1:1", "r1")).hasSize(5);
      assertThat(renew(r, "c2:1")).isEmpty();
      List<String> after = commandNames(redis);
      // before: the release wakes the head, whose own fair-acquire takes the lock
      assertThat(release(r, "c2:1", "r2")).containsExactly(1L, 0L, "");
      assertThat(fairAcquire(r, "c1:1", "h2", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a3", LEASE, "0")).element(0).isEqualTo(0L);
      startCounting(redis);
      assertThat(release(r, "c1:1", "r3")).containsExactly(1L, 0L, "c2:1");
      assertThat(fairAcquire(r, "c2:1", "a3", LEASE, "0")).element(0).isEqualTo(1L);
      List<String> before = commandNames(redis);
      System.out.printf(
          "fair cross-client hand-off: after (grant) %d commands, 2 scripts: %s%n"
              + "  before (wake-up) %d commands, 2 scripts, the second after the message: %s%n",
          after.size(), after, before.size(), before);
      // two scripts either way, and no more commands: the grant's release does the head's taking
      // itself, and the confirmation is a renewal where the wake-up needs the head's acquisition
      // (the difference is the hop: the waiter holds the lock when the message arrives)
      assertThat(after).filteredOn(c -> c.equals("eval")).hasSize(2);
      assertThat(before).filteredOn(c -> c.equals("eval")).hasSize(2);
      assertThat(after.size()).isLessThanOrEqualTo(before.size());
    } finally {
      raw.shutdown();
    }
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void theQueuesOrderIsKeptAcrossGrantsBetweenClients(RedisServer redis, WardenFactory wardens)
      throws Exception {
    DistributedLock held = wardens.create().fairLock(NAME);
    held.lock();
    List<Warden> clients = List.of(wardens.create(), wardens.create(), wardens.create());
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    // nine waiters, three per client, queued in a known order that alternates between clients
    for (int i = 0; i < 9; i++) {
      String name = "w" + i;
      DistributedLock lock = clients.get(i % 3).fairLock(NAME);
      waiting.add(
          Blocking.inThread(
              () -> {
                lock.lock();
                try {
                  order.add(name);
                } finally {
                  lock.unlock();
                }
                return null;
              }));
      awaitQueued(redis, i + 1);
      expected.add(name);
    }
    for (Warden client : clients) {
      awaitParked(client); // subscribed: each hand-off can be a grant
    }
    startCounting(redis);

    held.unlock();

    for (CompletableFuture<Void> done : waiting) {
      done.get(20, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactlyElementsOf(expected);
    // every hand-off went to another client by a grant: ten releases, nine grants, each
    // confirmed; no wake-up
    Map<String, Long> calls = scriptCalls(redis);
    assertThat(calls).containsEntry("fair-release", 10L);
    assertThat(published(redis, "granted ")).hasSize(9);
    assertThat(published(redis, "w:")).isEmpty();
    assertThat(calls.get("lock-renew")).isGreaterThanOrEqualTo(9L);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aGrantToAnAcquisitionItsClientNoLongerHasIsGivenBackAndGrantsOn(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock held = wardens.create().fairLock(NAME);
    held.lock();
    DistributedLock otherClient = wardens.create().fairLock(NAME);
    DistributedLock sameClient = wardens.create().fairLock(NAME);
    RedisCommands<String, String> r = redis.redis();
    CompletableFuture<Long> next = Blocking.inThread(() -> Waiters.tokenAfterWaiting(otherClient));
    awaitQueued(redis, 1);
    CompletableFuture<Long> last = Blocking.inThread(() -> Waiters.tokenAfterWaiting(sameClient));
    String client = clientOf(awaitQueuedOwners(redis, 2).get(1));
    // an acquisition of the last waiter's client that ended (gave up as the grant landed) heads
    // the queue: the release grants to it, and that client, which does not have it, gives it back
    // by its id and token; that give-back's last release grants to the next head, the other
    // client's waiter, which gets in from the message
    String gone = client + ":gone";
    r.zadd(QUEUE, 0, gone);
    r.zadd(BEATS, (double) (System.currentTimeMillis() + 60_000), gone);
    r.hset(ENTRIES, gone, "a-gone " + LEASE);
    long started = System.nanoTime();

    held.unlock();

    long nextToken = next.get(10, TimeUnit.SECONDS);
    // given back at once: without the give-back the lock stays with the grant for the grant lease
    // (3 s), and the next head finds it free only at its heartbeat-bounded re-check after that
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
        .isLessThan(Settings.GRANT_LEASE_MILLIS / 2);
    assertThat(last.get(10, TimeUnit.SECONDS)).as("then the last one").isGreaterThan(nextToken);
    assertThat(r.hexists(LOCK, gone)).isFalse();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 200)
  void aGrantToAProcessThatIsGoneEndsWithTheGrantLeaseAndTheNextHeadGetsIt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    GrantScenarios.aGrantToAProcessThatIsGoneEndsWithTheGrantLease(FAIR, redis, wardens);
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aWaiterWhoseWardenClosedIsNotGrantedAndTheNextHeadGetsIt(
      RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock held = wardens.create().fairLock(NAME);
    held.lock();
    RedisCommands<String, String> r = redis.redis();
    // a waiter whose Warden closed, while its queue entry stays (as if its leave were lost: put
    // back by hand after the close) and looks alive: nobody listens on its channel, so no grant
    Warden closed = wardens.create();
    DistributedLock closing = closed.fairLock(NAME);
    CompletableFuture<Boolean> ended =
        Blocking.inThread(() -> closing.tryLock(30, TimeUnit.SECONDS));
    String owner = awaitQueuedOwners(redis, 1).get(0);
    String record = r.hget(ENTRIES, owner);
    closed.close();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(ended::isDone);
    r.zadd(QUEUE, 0, owner);
    r.zadd(BEATS, (double) (System.currentTimeMillis() + 2_000), owner);
    r.hset(ENTRIES, owner, record);
    DistributedLock next = wardens.create().fairLock(NAME);
    CompletableFuture<Long> token = Blocking.inThread(() -> Waiters.tokenAfterWaiting(next));
    awaitQueued(redis, 2);

    held.unlock();

    assertThat(r.hexists(LOCK, owner)).as("not granted").isFalse();
    // the dead head is dropped once its heartbeat runs out, and the next head, at its
    // heartbeat-bounded re-check, takes the lock
    assertThat(token.get(Settings.HEARTBEAT_TIMEOUT_MILLIS + 5_000, TimeUnit.MILLISECONDS))
        .isPositive();
  }

  @Test
  @WardenOptions(recheckIntervalMillis = 60_000)
  void aLostGrantMessageCostsTheWaiterOneRecheck(RedisServer redis, WardenFactory wardens)
      throws Exception {
    GrantScenarios.aLostGrantMessageCostsTheWaiterOneRecheck(FAIR, redis, wardens);
  }

  @Test
  void aReleaseWhoseReplyIsLostAfterItGrantedFindsItsMarkerAndTheGrantStands(
      RedisServer redis, WardenFactory wardens) throws Exception {
    GrantScenarios.aReleaseWhoseReplyIsLostAfterItGrantedFindsItsMarkerAndTheGrantStands(
        FAIR, redis, wardens);
  }

  // ---- the scripts ----

  @Test
  void aGrantRecordsTheHeadsAcquisitionSoThatItsReplayFindsIt(RedisServer redis) throws Exception {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub();
        StatefulRedisPubSubConnection<String, String> c3 = raw.connectPubSub()) {
      BlockingQueue<String> heard = new LinkedBlockingQueue<>();
      c2.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              heard.add(channel + " " + message);
            }
          });
      c2.sync().subscribe(CHANNEL + ":c2");
      c3.sync().subscribe(CHANNEL + ":c3");
      assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a2", LEASE, "1")).element(0).isEqualTo(0L);
      assertThat(fairAcquire(r, "c3:1", "a3", LEASE, "1")).element(0).isEqualTo(0L);
      assertThat(r.hget(ENTRIES, "c2:1")).isEqualTo("a2 " + LEASE);

      List<Object> released = release(r, "c1:1", "r1");
      assertThat(released).hasSize(5).startsWith(1L, 0L, "c2:1").endsWith(1L);
      long token = Long.parseLong(String.valueOf(released.get(3)));

      assertThat(heard.poll(5, TimeUnit.SECONDS))
          .isEqualTo(CHANNEL + ":c2 granted " + token + " a2 c2:1");
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.hget(LOCK, "#a")).isEqualTo("a2");
      assertThat(r.hget(LOCK, "#t")).isEqualTo(Long.toString(token));
      assertThat(r.hexists(LOCK, "c1:1")).isFalse();
      assertThat(r.zrange(QUEUE, 0, -1)).containsExactly("c3:1");
      assertThat(r.zscore(BEATS, "c2:1")).isNull();
      assertThat(r.hexists(ENTRIES, "c2:1")).isFalse();
      assertThat(r.pttl(LOCK)).isBetween(1L, Settings.GRANT_LEASE_MILLIS);

      // the release replayed (its reply lost): its marker says it ended the hold; nothing more
      assertThat(release(r, "c1:1", "r1")).containsExactly(1L, 0L, "");
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");

      // the waiter's own attempt (its message lost) is a replay: it holds once, with a new token
      // and its full lease
      List<Object> replay = fairAcquire(r, "c2:1", "a2", LEASE, "1");
      assertThat(replay.get(0)).isEqualTo(1L);
      assertThat(Long.parseLong(String.valueOf(replay.get(1)))).isGreaterThan(token);
      assertThat(replay.get(2)).isEqualTo(1L);
      assertThat(r.pttl(LOCK)).isGreaterThan(Settings.GRANT_LEASE_MILLIS);

      // a give-back of the grant (the message came late, after the replay) changes nothing
      assertThat(giveBackGrant(r, "c2:1", "a2", token)).containsExactly(0L);
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");

      // the next release grants to the next head
      assertThat(release(r, "c2:1", "r2")).hasSize(5).startsWith(1L, 0L, "c3:1");
      assertThat(r.hget(LOCK, "c3:1")).isEqualTo("1");
      assertThat(r.zcard(QUEUE)).isZero();
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void aGrantNeverOutlastsTheWaitersOwnShorterLease(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a2", "700", "1")).element(0).isEqualTo(0L);
      assertThat(release(r, "c1:1", "r1")).hasSize(5);
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.pttl(LOCK)).isBetween(1L, 700L);
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void aGiveBackOfAGrantNeverEndsTheSameOwnersNextHoldAndGrantsOnWhenItEndsTheGrant(
      RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub();
        StatefulRedisPubSubConnection<String, String> c3 = raw.connectPubSub()) {
      c2.sync().subscribe(CHANNEL + ":c2");
      c3.sync().subscribe(CHANNEL + ":c3");
      assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a2", LEASE, "1")).element(0).isEqualTo(0L);
      List<Object> granted = release(r, "c1:1", "r1");
      assertThat(granted).hasSize(5);
      long token = Long.parseLong(String.valueOf(granted.get(3)));

      // the acquisition gave up as the grant landed; the same thread acquires again first
      List<Object> next = fairAcquire(r, "c2:1", "b2", LEASE, "1");
      assertThat(next.get(0)).isEqualTo(1L);
      assertThat(Long.parseLong(String.valueOf(next.get(1)))).isGreaterThan(token);

      // then the give-back of the grant arrives: the hold is the next acquisition's, it stays
      assertThat(giveBackGrant(r, "c2:1", "a2", token)).containsExactly(0L);
      assertThat(r.hget(LOCK, "c2:1")).isEqualTo("1");
      assertThat(r.hget(LOCK, "#a")).isEqualTo("b2");

      // the other order: the give-back first ends the grant and grants to the next head
      assertThat(release(r, "c2:1", "r2")).containsExactly(1L, 0L, "");
      assertThat(fairAcquire(r, "c1:1", "h2", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a3", LEASE, "1")).element(0).isEqualTo(0L);
      assertThat(fairAcquire(r, "c3:1", "a4", LEASE, "1")).element(0).isEqualTo(0L);
      granted = release(r, "c1:1", "r3");
      token = Long.parseLong(String.valueOf(granted.get(3)));
      List<Object> givenBack = giveBackGrant(r, "c2:1", "a3", token);
      assertThat(givenBack).hasSize(5).startsWith(1L, 0L, "c3:1");
      assertThat(r.hexists(LOCK, "c2:1")).isFalse();
      assertThat(r.hget(LOCK, "c3:1")).isEqualTo("1");
      assertThat(r.hget(LOCK, "#a")).isEqualTo("a4");
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void noGrantWithoutARecordedLeaseAListenerAnotherClientOrTheScriptsOwnPublish(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> c2 = raw.connectPubSub()) {
      // queued, but its client does not listen on its channel (gone, or unsubscribed)
      assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a2", LEASE, "1")).element(0).isEqualTo(0L);
      assertThat(release(r, "c1:1", "r1")).containsExactly(1L, 0L, "c2:1");
      assertThat(r.exists(LOCK)).isZero();
      assertThat(fairLeave(r, "c2:1", "a2")).containsExactly(1L);

      // listening, but it takes no grant (an explicit lease, a previous version: the id alone)
      c2.sync().subscribe(CHANNEL + ":c2");
      assertThat(fairAcquire(r, "c1:1", "h2", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a3", LEASE, "0")).element(0).isEqualTo(0L);
      assertThat(r.hget(ENTRIES, "c2:1")).isEqualTo("a3");
      assertThat(release(r, "c1:1", "r2")).containsExactly(1L, 0L, "c2:1");
      assertThat(r.exists(LOCK)).isZero();
      assertThat(fairLeave(r, "c2:1", "a3")).containsExactly(1L);

      // the head is a waiter of the releasing client (not the one it offered): the wake-up
      assertThat(fairAcquire(r, "c2:9", "h3", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a4", LEASE, "1")).element(0).isEqualTo(0L);
      assertThat(release(r, "c2:9", "r3")).containsExactly(1L, 0L, "c2:1");
      assertThat(r.exists(LOCK)).isZero();
      assertThat(fairLeave(r, "c2:1", "a4")).containsExactly(1L);

      // the client wake-up mode's recording twin never grants: it cannot know who will hear
      assertThat(fairAcquire(r, "c1:1", "h4", LEASE, "0")).element(0).isEqualTo(1L);
      assertThat(fairAcquire(r, "c2:1", "a5", LEASE, "1")).element(0).isEqualTo(0L);
      List<Object> recorded =
          r.eval(
              LuaScripts.load("fair-release").recording().body(),
              ScriptOutputType.MULTI,
              releaseKeys("c1:1"),
              releaseArgs("c1:1", "1", "", "r4", ""));
      assertThat(recorded).isNotEmpty();
      assertThat(r.exists(LOCK)).isZero();
      assertThat(r.zrange(QUEUE, 0, -1)).containsExactly("c2:1");
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void theLeaveAndTheHeartbeatKnowAnEntryThatRecordsALease(RedisServer redis) {
    RedisCommands<String, String> r = redis.redis();
    assertThat(fairAcquire(r, "c1:1", "h1", LEASE, "0")).element(0).isEqualTo(1L);
    assertThat(fairAcquire(r, "c2:1", "a2", LEASE, "1")).element(0).isEqualTo(0L);
    assertThat(fairAcquire(r, "c2:2", "b2", LEASE, "0")).element(0).isEqualTo(0L);
    assertThat(fairHeartbeat(r, "c2:1", "a2", "c2:2", "b2", "c2:1", "x")).containsExactly(3L);
    assertThat(fairLeave(r, "c2:1", "other")).containsExactly(0L);
    assertThat(fairLeave(r, "c2:1", "a2")).containsExactly(1L);
    assertThat(r.zrange(QUEUE, 0, -1)).containsExactly("c2:2");
    assertThat(fairHeartbeat(r, "c2:1", "a2", "c2:2", "b2")).containsExactly(1L);
  }

  // ---- helpers ----

  /** The fair lock, for the scenarios it shares with the reentrant lock (DirectGrantIT). */
  private static final GrantScenarios.GrantedLock FAIR =
      new GrantScenarios.GrantedLock(
          LOCK,
          CHANNEL,
          "fair-release",
          warden -> warden.fairLock(NAME),
          (r, owner, acquisition, waits) ->
              fairAcquire(r, owner, acquisition, LEASE, waits ? "1" : "0"),
          redis -> awaitQueuedOwners(redis, 1).get(0),
          FairGrantIT::awaitSecondKeepingTheFirst,
          FairGrantIT::releaseKeys,
          (owner, releaseId) -> releaseArgs(owner, "1", "", releaseId, ""),
          (released, waiter) -> assertThat(released).hasSize(5).startsWith(1L, 0L, waiter));

  /**
   * Waits until a second waiter is queued; keeps the first one's heartbeat alive (it would run out
   * after 3 s), so that only the grant lease can end a grant to it.
   */
  private static void awaitSecondKeepingTheFirst(RedisServer redis, String first) {
    awaitQueued(redis, 2);
    redis.redis().zadd(BEATS, (double) (System.currentTimeMillis() + 60_000), first);
  }

  /** Logs every command from now on (SLOWLOG with a threshold of 0), for {@link #scriptCalls}. */
  private static void startCounting(RedisServer redis) {
    redis.redis().configSet("slowlog-max-len", "10000");
    redis.redis().configSet("slowlog-log-slower-than", "0");
    redis.redis().slowlogReset();
  }

  /**
   * The script calls since {@link #startCounting}, by script name (EVALSHA by its digest; one that
   * answered NOSCRIPT is counted once, its EVAL not), and stops logging.
   */
  private static Map<String, Long> scriptCalls(RedisServer redis) {
    redis.redis().configSet("slowlog-log-slower-than", "10000");
    Map<String, String> names = new HashMap<>();
    for (String name :
        List.of("fair-acquire", "fair-release", "fair-heartbeat", "fair-leave", "lock-renew")) {
      names.put(LuaScripts.load(name).sha(), name);
    }
    Map<String, Long> calls = new TreeMap<>();
    for (List<String> args : logged(redis)) {
      if (args.get(0).equalsIgnoreCase("evalsha")) {
        calls.merge(names.getOrDefault(args.get(1), "other"), 1L, Long::sum);
      }
    }
    return calls;
  }

  /** The messages published since {@link #startCounting} that begin with {@code prefix}. */
  private static List<String> published(RedisServer redis, String prefix) {
    return logged(redis).stream()
        .filter(args -> args.get(0).equalsIgnoreCase("publish") && args.size() > 2)
        .map(args -> args.get(2))
        .filter(message -> message.startsWith(prefix))
        .toList();
  }

  /**
   * The commands run since {@link #startCounting}, oldest first, in lower case (a script's own
   * commands before the script), without the test's own SLOWLOG and CONFIG; stops logging.
   */
  private static List<String> commandNames(RedisServer redis) {
    redis.redis().configSet("slowlog-log-slower-than", "10000");
    List<String> names = new ArrayList<>();
    for (List<String> args : logged(redis)) {
      String name = args.get(0).toLowerCase(Locale.ROOT);
      if (!name.equals("slowlog") && !name.equals("config")) {
        names.add(name);
      }
    }
    Collections.reverse(names);
    return names;
  }

  /** Waits until a waiter of that client is parked (its subscription confirmed, then refused). */
  private static void awaitParked(Warden warden) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> warden.stats().parkedWaiters() > 0);
  }

  /** lock-renew of the owner's hold with a full lease, as the lease keeper sends it. */
  private static List<Object> renew(RedisCommands<String, String> r, String owner) {
    return LuaScripts.run(r, "lock-renew", new String[] {LOCK}, LEASE, owner);
  }

  private static List<List<String>> logged(RedisServer redis) {
    List<List<String>> commands = new ArrayList<>();
    for (Object raw : redis.redis().slowlogGet(10000)) {
      commands.add(((List<?>) ((List<?>) raw).get(3)).stream().map(String::valueOf).toList());
    }
    return commands;
  }

  /** Waits until {@code count} waiters are queued; returns their entries' records, in order. */
  private static List<String> awaitQueued(RedisServer redis, int count) {
    List<String> owners = awaitQueuedOwners(redis, count);
    List<String> records = new ArrayList<>();
    for (String owner : owners) {
      records.add(redis.redis().hget(ENTRIES, owner));
    }
    return records;
  }

  /** Waits until {@code count} waiters are queued; returns them, in order. */
  private static List<String> awaitQueuedOwners(RedisServer redis, int count) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis.redis().zcard(QUEUE) >= count);
    return redis.redis().zrange(QUEUE, 0, -1);
  }

  /** The client id in an owner id. */
  private static String clientOf(String owner) {
    return owner.substring(0, owner.indexOf(':'));
  }

  /** fair-acquire as FairDriver sends it for a first acquisition that waits if refused. */
  private static List<Object> fairAcquire(
      RedisCommands<String, String> r,
      String owner,
      String acquisition,
      String lease,
      String takesGrants) {
    return LuaScripts.run(
        r,
        "fair-acquire",
        new String[] {LOCK, FENCE, QUEUE, BEATS, TICKETS, ENTRIES},
        owner,
        lease,
        "0",
        TERMS,
        "1",
        Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS),
        "",
        CHANNEL,
        acquisition,
        takesGrants);
  }

  private static List<Object> fairLeave(
      RedisCommands<String, String> r, String owner, String acquisition) {
    return LuaScripts.run(
        r, "fair-leave", new String[] {LOCK, QUEUE, BEATS, ENTRIES}, owner, CHANNEL, acquisition);
  }

  private static List<Object> fairHeartbeat(RedisCommands<String, String> r, String... pairs) {
    String[] args = new String[1 + pairs.length];
    args[0] = Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS);
    System.arraycopy(pairs, 0, args, 1, pairs.length);
    return LuaScripts.run(r, "fair-heartbeat", new String[] {QUEUE, BEATS, TICKETS, ENTRIES}, args);
  }

  private static List<Object> release(RedisCommands<String, String> r, String owner, String id) {
    return LuaScripts.run(
        r, "fair-release", releaseKeys(owner), releaseArgs(owner, "1", "", id, ""));
  }

  private static List<Object> giveBackGrant(
      RedisCommands<String, String> r, String owner, String acquisition, long token) {
    return LuaScripts.run(
        r,
        "fair-release",
        releaseKeys(owner),
        releaseArgs(owner, "0", acquisition, "", Long.toString(token)));
  }

  private static String[] releaseKeys(String owner) {
    return new String[] {LOCK, QUEUE, BEATS, FENCE, LOCK + ":unlocked:" + owner, ENTRIES};
  }

  /** fair-release's arguments as FairDriver sends them, with no waiter of its own offered. */
  private static String[] releaseArgs(
      String owner, String count, String undo, String releaseId, String token) {
    return new String[] {
      owner,
      count,
      CHANNEL,
      "",
      "0",
      "",
      TERMS,
      undo,
      releaseId,
      "60000",
      token,
      Long.toString(Settings.GRANT_LEASE_MILLIS)
    };
  }
}
