package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.internal.base.Settings;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The direct-grant scenarios that the reentrant lock (DirectGrantIT, lock-release.lua) and the fair
 * lock (FairGrantIT, fair-release.lua) share, written once over what differs between them ({@link
 * GrantedLock}): a grant to a process that is gone, a lost grant message, a lost reply of the
 * release that granted.
 */
final class GrantScenarios {
  private GrantScenarios() {}

  /**
   * What a scenario needs of the lock type it runs on.
   *
   * @param key the lock's hash key
   * @param channel the channel its releases publish on ({@code <channel>:<client id>} for one
   *     client)
   * @param releaseScript the name of its release script
   * @param lock the test's lock of this type, from a Warden
   * @param acquire runs its acquisition script for an owner as the driver sends it: one that takes
   *     grants and waits if refused, or (not {@code waits}) one that neither waits nor registers
   * @param awaitWaiter waits until the one waiter waits for a grant; returns its owner id
   * @param awaitSecondWaiter waits until a second waiter waits behind the first (an owner the
   *     scenario made wait with {@code acquire}), keeping the first in line while the test runs
   * @param releaseKeys the release's keys for an owner
   * @param releaseArgs the release's arguments for the last release of an owner, by release id
   * @param assertGranted asserts that a release's reply says it granted the lock to the waiter
   */
  record GrantedLock(
      String key,
      String channel,
      String releaseScript,
      Function<Warden, DistributedLock> lock,
      Acquire acquire,
      Function<RedisServer, String> awaitWaiter,
      BiConsumer<RedisServer, String> awaitSecondWaiter,
      Function<String, String[]> releaseKeys,
      BiFunction<String, String, String[]> releaseArgs,
      BiConsumer<List<Object>, String> assertGranted) {

    void hold(RedisCommands<String, String> r, String owner, String acquisition) {
      assertThat(acquire.run(r, owner, acquisition, false)).element(0).isEqualTo(1L);
    }

    void waitForGrant(RedisCommands<String, String> r, String owner, String acquisition) {
      assertThat(acquire.run(r, owner, acquisition, true)).element(0).isEqualTo(0L);
    }
  }

  /** An acquisition script's run for {@code owner}. */
  interface Acquire {
    List<Object> run(
        RedisCommands<String, String> r, String owner, String acquisition, boolean waits);
  }

  /**
   * A process that waits for a grant and listens on its channel, then dies after the grant (it
   * never confirms): the lock's next waiter gets in once the grant lease ends, not after the dead
   * waiter's 30 s lease.
   */
  static void aGrantToAProcessThatIsGoneEndsWithTheGrantLease(
      GrantedLock lock, RedisServer redis, WardenFactory wardens) throws Exception {
    DistributedLock held = lock.lock().apply(wardens.create());
    held.lock();
    RedisCommands<String, String> r = redis.redis();
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> gone = raw.connectPubSub()) {
      gone.sync().subscribe(lock.channel() + ":dead");
      lock.waitForGrant(r, "dead:1", "a1");
      CompletableFuture<Long> waited =
          Waiters.millisToLockAndUnlock(lock.lock().apply(wardens.create()));
      lock.awaitSecondWaiter().accept(redis, "dead:1");

      held.unlock();

      assertThat(r.hget(lock.key(), "dead:1")).isEqualTo("1");
      assertThat(r.pttl(lock.key())).isBetween(1L, Settings.GRANT_LEASE_MILLIS);
      assertThat(waited.get(Settings.GRANT_LEASE_MILLIS + 5_000, TimeUnit.MILLISECONDS))
          .isBetween(Settings.GRANT_LEASE_MILLIS / 2, Settings.GRANT_LEASE_MILLIS + 3_000);
    } finally {
      raw.shutdown();
    }
  }

  /**
   * Somebody else listens on the waiter's channel, so the release grants; the waiter's client loses
   * its pub/sub connection (and the message) in the same transaction. Its re-subscription re-checks
   * at once (not at its one-minute recheck): a replay of the granted acquisition, which takes the
   * lock with a new token. The waiter's Warden must re-check once a minute.
   */
  static void aLostGrantMessageCostsTheWaiterOneRecheck(
      GrantedLock lock, RedisServer redis, WardenFactory wardens) throws Exception {
    RedisCommands<String, String> r = redis.redis();
    lock.hold(r, "raw:1", "h1");
    DistributedLock waiter = lock.lock().apply(wardens.create());
    CompletableFuture<Long> granted = Blocking.inThread(() -> Waiters.tokenAfterWaiting(waiter));
    String owner = lock.awaitWaiter().apply(redis);
    String client = owner.substring(0, owner.indexOf(':'));
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisPubSubConnection<String, String> standIn = raw.connectPubSub()) {
      long standInId = standIn.sync().clientId();
      BlockingQueue<String> heard = new LinkedBlockingQueue<>();
      standIn.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              heard.add(message);
            }
          });
      standIn.sync().subscribe(lock.channel() + ":" + client);
      long pubSubId = pubSubConnectionOtherThan(r, standInId);
      r.multi();
      r.clientKill(KillArgs.Builder.id(pubSubId));
      r.eval(
          LuaScripts.body(lock.releaseScript()),
          ScriptOutputType.MULTI,
          lock.releaseKeys().apply("raw:1"),
          lock.releaseArgs().apply("raw:1", "r1"));
      TransactionResult done = r.exec();
      List<Object> released = done.get(1);
      lock.assertGranted().accept(released, owner);
      String message = heard.poll(5, TimeUnit.SECONDS);
      assertThat(message).startsWith("granted ");
      long grantToken = Long.parseLong(message.substring(8, message.indexOf(' ', 8)));

      long token = granted.get(10, TimeUnit.SECONDS);
      assertThat(token).isGreaterThan(grantToken);
    } finally {
      raw.shutdown();
    }
  }

  /**
   * The holder's connection loses the reply of the release that granted: the waiter is in from the
   * message, and the release's run again finds its marker (released, no error); the grant stands.
   */
  static void aReleaseWhoseReplyIsLostAfterItGrantedFindsItsMarkerAndTheGrantStands(
      GrantedLock lock, RedisServer redis, WardenFactory wardens) throws Exception {
    Warden waiting = wardens.create(builder -> builder.recheckInterval(Duration.ofMinutes(1)));
    try (FaultProxy proxy = FaultProxy.start(redis);
        Warden holding =
            Warden.builder().uri(proxy.uri()).commandTimeout(Duration.ofSeconds(1)).build()) {
      DistributedLock holder = lock.lock().apply(holding);
      DistributedLock waiter = lock.lock().apply(waiting);
      ExecutorService holderThread = Executors.newSingleThreadExecutor();
      try {
        holderThread
            .submit(
                () -> {
                  holder.lock();
                })
            .get(10, TimeUnit.SECONDS);
        CompletableFuture<Long> granted = new CompletableFuture<>();
        CompletableFuture<Void> checked = new CompletableFuture<>();
        CompletableFuture<Void> holds = Waiters.holdingUntil(waiter, granted, checked, 20);
        String waiterOwner = lock.awaitWaiter().apply(redis);
        proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
        Future<?> unlocked = holderThread.submit(holder::unlock);
        // the release ran and granted (its reply lost): the waiter is in from the message
        long token = granted.get(10, TimeUnit.SECONDS);
        proxy.cut();
        proxy.heal();
        unlocked.get(10, TimeUnit.SECONDS); // its run again finds its marker: released, no error
        assertThat(redis.redis().hget(lock.key(), waiterOwner)).isEqualTo("1");
        assertThat(redis.redis().hget(lock.key(), "#t")).isEqualTo(Long.toString(token));
        checked.complete(null);
        holds.get(10, TimeUnit.SECONDS);
        assertThat(redis.redis().exists(lock.key())).isZero();
      } finally {
        holderThread.shutdownNow();
      }
    }
  }

  /** The id of the pub/sub connection (a subscriber) that is not {@code other}. */
  static long pubSubConnectionOtherThan(RedisCommands<String, String> r, long other) {
    for (String line : r.clientList().lines().toList()) {
      if (line.contains(" sub=") && !line.contains(" sub=0 ")) {
        long id = Long.parseLong(line.substring(3, line.indexOf(' ')));
        if (id != other) {
          return id;
        }
      }
    }
    throw new AssertionError("no other subscriber: " + r.clientList());
  }
}
