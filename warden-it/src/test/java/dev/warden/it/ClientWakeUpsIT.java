package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.WakeUps;
import dev.warden.Warden;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.SystemTimer;
import dev.warden.internal.redis.ClientSetup;
import dev.warden.internal.redis.Script;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.redis.SingleServer;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Wake-ups published by the client ({@link WakeUps#FROM_CLIENT}), as on a server that refuses
 * PUBLISH inside scripts: each script's recording twin records its wake-ups and {@code
 * redis.Scripts} publishes them after the reply, on the script's connection, before the caller sees
 * the reply. Counted on the server: SLOWLOG (with a threshold of 0) logs every command as Redis
 * finished it, so a script's own calls come before the script (Redis names them by its Lua client,
 * which has no name; Valkey by the script's caller). A recheck interval of a minute leaves only a
 * delivered wake-up to let a waiter in within the tests' bounds. The contract suites run in the
 * mode in {@link ClientWakeUpsContractIT}.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(value = WardenDeployment.Kind.SINGLE, wakeUps = WakeUps.FROM_CLIENT)
@WardenOptions(recheckIntervalMillis = 60_000)
class ClientWakeUpsIT {
  @Test
  void theCheckReportsTheModeAskedFor(RedisServer redis) {
    assertThat(Warden.builder().uri(redis.uri()).wakeUps(WakeUps.FROM_CLIENT).check().toString())
        .contains("  PUBLISH from the client (wake-ups): ok\n")
        .doesNotContain("PUBLISH from a script")
        .endsWith("  wake-ups: published by the client after each script (WakeUps.FROM_CLIENT)\n");
    assertThat(Warden.builder().uri(redis.uri()).check().wakeUps()).isEqualTo(WakeUps.FROM_SCRIPTS);
  }

  @Test
  void aReleasePublishesOnceFromTheClientAfterItsScriptAndBeforeTheClientsNextCommand(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Warden waiting = wardens.create();
    Warden holding = wardens.create();
    DistributedLock holder = holding.lock("woken");
    DistributedLock next = holding.lock("next");
    DistributedLock waiter = waiting.lock("woken");
    next.lock(); // loads the scripts (NOSCRIPT, then EVAL) before the count
    next.unlock();
    holder.lock();
    CompletableFuture<Void> waited =
        CompletableFuture.runAsync(
            () -> {
              waiter.lock();
              waiter.unlock();
            });
    Awaitility.await().until(() -> waiting.stats().subscriptions() == 1);
    redis.redis().configSet("slowlog-log-slower-than", "0");
    redis.redis().configSet("slowlog-max-len", "1000");
    redis.redis().slowlogReset();
    redis.redis().configResetstat();

    holder.unlock();
    next.lock(); // sent once unlock() returned: it must reach Redis behind the wake-up
    waited.get(10, TimeUnit.SECONDS); // woken by the wake-up: the recheck is a minute away
    next.unlock();

    redis.redis().configSet("slowlog-log-slower-than", "10000");
    List<Entry> log = slowlog(redis);
    List<Entry> publishes = log.stream().filter(e -> e.command().equals("publish")).toList();
    assertThat(publishes).as(log.toString()).hasSize(1);
    String client = publishes.get(0).client(); // a Warden's connection (on Redis: not a script)
    List<Entry> holders =
        log.stream()
            .filter(e -> e.client().equals(client))
            .filter(e -> List.of("evalsha", "eval", "publish").contains(e.command()))
            .toList();
    // the release's script, then its wake-up (a script's own PUBLISH would come before it), then
    // the client's next command
    assertThat(holders.subList(0, 3))
        .extracting(Entry::command)
        .as(log.toString())
        .containsExactly("evalsha", "publish", "evalsha");
    // the waiter's acquisition: the one other client that ran a script
    List<String> others =
        log.stream()
            .filter(e -> e.command().equals("evalsha") && !e.client().equals(client))
            .map(Entry::client)
            .distinct()
            .toList();
    assertThat(others).hasSize(1);
    // the release nominated the waiter's client (a cross-client turn), named in the wake-up
    assertThat(publishes.get(0).args().get(2))
        .isEqualTo("released " + id(client) + " " + id(others.get(0)));
    // the waiter's client published nothing; the server ran one PUBLISH in all (none in a script)
    assertThat(redis.commandCalls().get("publish")).isEqualTo(1L);
  }

  /**
   * The wake-up goes out only when the release's reply comes back: a reply lost after the script
   * ran loses it for good (the release's replay finds its own mark and publishes nothing). The
   * waiter, in another client, must still get in, at its recheck: never woken would keep it out for
   * good while nobody holds the lock.
   */
  @Test
  void aReleaseWhoseReplyIsLostLetsTheWaiterInAtItsRecheck(RedisServer redis, WardenFactory wardens)
      throws Exception {
    long recheckMillis = 3_000;
    Warden waiting =
        wardens.create(builder -> builder.recheckInterval(Duration.ofMillis(recheckMillis)));
    try (FaultProxy proxy = FaultProxy.start(redis);
        Warden holding =
            Warden.builder()
                .uri(proxy.uri())
                .wakeUps(WakeUps.FROM_CLIENT)
                .commandTimeout(Duration.ofSeconds(1))
                .build()) {
      DistributedLock holder = holding.lock("reply-lost");
      DistributedLock waiter = waiting.lock("reply-lost");
      // lock() and unlock() on one thread (a thread-bound lock)
      ExecutorService holderThread = Executors.newSingleThreadExecutor();
      holderThread
          .submit(
              () -> {
                holder.lock(); // loads the scripts
                holder.unlock();
                holder.lock();
              })
          .get(10, TimeUnit.SECONDS);
      Map<String, Long> callsWhenIn = new ConcurrentHashMap<>();
      CompletableFuture<Long> waited =
          CompletableFuture.supplyAsync(
              () -> {
                waiter.lock();
                long in = System.nanoTime();
                callsWhenIn.putAll(redis.commandCalls());
                waiter.unlock();
                return in;
              });
      Awaitility.await().until(() -> waiting.stats().parkedWaiters() == 1);
      redis.redis().configResetstat();
      proxy.blackhole(FaultProxy.Direction.TARGET_TO_CLIENT);
      Future<?> unlocked = holderThread.submit(holder::unlock);
      // the release ran (its hold and token are gone); its reply, and so its wake-up, did not come
      Awaitility.await().until(() -> !redis.redis().hexists("warden:{reply-lost}:lock", "#t"));
      long released = System.nanoTime();
      proxy.cut();
      proxy.heal();
      unlocked.get(10, TimeUnit.SECONDS); // the replay finds the release done
      holderThread.shutdown();
      long in = waited.get(recheckMillis + 5_000, TimeUnit.MILLISECONDS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(in - released))
          .as("let in by its recheck, %d ms after the release", recheckMillis)
          .isLessThan(recheckMillis + 2_000);
      // nobody published the lost release's wake-up before the waiter was in
      assertThat(callsWhenIn).containsKey("evalsha").doesNotContainKey("publish");
    }
  }

  /**
   * A PUBLISH the server refuses after build() (the user's +publish taken away) fails no call: the
   * release returns as usual, its wake-up is lost (logged), and the waiter of another client gets
   * in at its recheck.
   */
  @Test
  void aRefusedWakeUpFailsNoReleaseAndTheWaiterGetsInAtItsRecheck(
      RedisServer redis, WardenFactory wardens) throws Exception {
    long recheckMillis = 2_000;
    WardenAcl.createUser(redis, "no-publish", "no-publish-secret", WardenAcl.SINGLE_SERVER);
    Warden waiting =
        wardens.create(builder -> builder.recheckInterval(Duration.ofMillis(recheckMillis)));
    ExecutorService holderThread = Executors.newSingleThreadExecutor();
    try (Warden holding =
        Warden.builder()
            .uri("redis://no-publish:no-publish-secret@" + redis.host() + ":" + redis.port())
            .wakeUps(WakeUps.FROM_CLIENT)
            .build()) {
      DistributedLock holder = holding.lock("refused");
      DistributedLock waiter = waiting.lock("refused");
      holderThread.submit(() -> holder.lock()).get(10, TimeUnit.SECONDS);
      CompletableFuture<Long> waited =
          CompletableFuture.supplyAsync(
              () -> {
                waiter.lock();
                long in = System.nanoTime();
                waiter.unlock();
                return in;
              });
      Awaitility.await().until(() -> waiting.stats().parkedWaiters() == 1);
      WardenAcl.changeUser(redis, "no-publish", "-publish");
      long released = System.nanoTime();
      holderThread.submit(holder::unlock).get(10, TimeUnit.SECONDS); // no failure
      long in = waited.get(recheckMillis + 5_000, TimeUnit.MILLISECONDS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(in - released)).isLessThan(recheckMillis + 2_000);
      assertThat(redis.redis().aclLog())
          .as("the server refused the release's wake-up")
          .anySatisfy(entry -> assertThat(entry.toString()).contains("publish"));
    } finally {
      holderThread.shutdownNow();
    }
  }

  @Test
  void clientsOfEitherModeWakeEachOther(WardenFactory wardens) throws Exception {
    Warden fromClient = wardens.create();
    Warden fromScripts = wardens.create(builder -> builder.wakeUps(WakeUps.FROM_SCRIPTS));
    handOver(fromClient, fromScripts, "client-to-scripts");
    handOver(fromScripts, fromClient, "scripts-to-client");
  }

  /** One holds, the other waits (its recheck a minute away) and gets the lock once released. */
  private static void handOver(Warden holding, Warden waiting, String name) throws Exception {
    DistributedLock holder = holding.lock(name);
    DistributedLock waiter = waiting.lock(name);
    holder.lock();
    CompletableFuture<Void> waited =
        CompletableFuture.runAsync(
            () -> {
              waiter.lock();
              waiter.unlock();
            });
    Awaitility.await().until(() -> waiting.stats().subscriptions() == 1);
    holder.unlock();
    waited.get(10, TimeUnit.SECONDS);
  }

  @Test
  void theRecordingTwinRepliesWithItsWakeUpsThenTheScriptsReplyWhateverItsShape(RedisServer redis) {
    assertThat(twin(redis, "return {1, 'a', 2}"))
        .isEqualTo(List.of(List.of("ch", "m", ""), List.of(1L, "a", 2L)));
    assertThat(twin(redis, "return nil")).isEqualTo(List.of(List.of("ch", "m", "")));
    assertThat(twin(redis, "return 7")).isEqualTo(List.of(List.of("ch", "m", ""), 7L));
    assertThat(twin(redis, "return redis.status_reply('OK')"))
        .isEqualTo(List.of(List.of("ch", "m", ""), "OK"));
    assertThatThrownBy(() -> twin(redis, "return redis.error_reply('ERR refused here')"))
        .isInstanceOf(RedisCommandExecutionException.class)
        .hasMessage("ERR refused here");
  }

  @Test
  void aScriptThatRaisesAnErrorFailsAsItsPlainSelfDoesAtTheSameLine(RedisServer redis) {
    Script plain = script("local x = 1\nerror('broken at line 2 of the script')");
    String plainError = failure(redis, plain);
    String twinError = failure(redis, plain.recording());
    assertThat(twinError.replace(plain.recording().sha(), "SHA"))
        .isEqualTo(plainError.replace(plain.sha(), "SHA"))
        .contains("broken at line 2 of the script");
  }

  @Test
  void scriptsHandOnTheScriptsOwnReplyAndPublishOnlyWhatSucceededScriptsRecorded(RedisServer redis)
      throws Exception {
    RedisClient client = RedisClient.create(redis.uri());
    SystemTimer timer = new SystemTimer();
    SingleServer deployment = deployment(redis, timer);
    try (StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub()) {
      List<String> heard = Collections.synchronizedList(new ArrayList<>());
      pubSub.addListener(recorder(heard));
      pubSub.sync().subscribe("{t}:ch");
      Scripts plain = new Scripts(deployment, false);
      Scripts fromClient = new Scripts(deployment, true);
      String[] keys = {"{t}:k", "{t}:ch"};
      for (String reply : List.of("{1, 'a', 2}", "{}", "{0}")) {
        Script script = script("publish(KEYS[2], 'w')\nreturn " + reply);
        assertThat(fromClient.run(script, keys).get(5, TimeUnit.SECONDS))
            .isEqualTo(plain.run(script, keys).get(5, TimeUnit.SECONDS));
      }
      Script integers = script("publish(KEYS[2], 'w')\nreturn {3, 4}");
      CommandArgs<String, String> encoded =
          new CommandArgs<>(StringCodec.UTF8).add(bytes(keys[0])).add(bytes(keys[1]));
      assertThat(
              fromClient.runEncoded(integers, bytes(keys[0]), 2, encoded).get(5, TimeUnit.SECONDS))
          .containsExactly(3L, 4L);
      Script failing = script("publish(KEYS[2], 'lost')\nreturn redis.error_reply('ERR no')");
      assertThatThrownBy(() -> fromClient.run(failing, keys).get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("ERR no");
      // the last script: its wake-up was published (behind the failed one) if that one's were
      fromClient.run(script("publish(KEYS[2], 'last')\nreturn {1}"), keys).get(5, TimeUnit.SECONDS);
      Awaitility.await().until(() -> heard.contains("{t}:ch last"));
      // three list scripts twice each, the integers once, nothing of the failed one
      assertThat(heard).hasSize(8).doesNotContain("{t}:ch lost");
    } finally {
      deployment.close();
      timer.shutdown();
      client.shutdown();
    }
  }

  @Test
  void anAddressedWakeUpThatNobodyHeardIsPublishedOnTheSharedChannelToo(RedisServer redis)
      throws Exception {
    assertThat(twin(redis, "publish_to('ch', 'c1:o', 'n')\nreturn {}"))
        .as("recorded with the shared channel as its fallback")
        .isEqualTo(List.of(List.of("ch", "m", "", "ch:c1", "n", "ch"), List.of()));
    RedisClient client = RedisClient.create(redis.uri());
    SystemTimer timer = new SystemTimer();
    SingleServer deployment = deployment(redis, timer);
    try (StatefulRedisPubSubConnection<String, String> shared = client.connectPubSub();
        StatefulRedisPubSubConnection<String, String> own = client.connectPubSub()) {
      // two connections: Redis keeps the order of each one's messages, not across the two
      List<String> heardShared = Collections.synchronizedList(new ArrayList<>());
      List<String> heardOwn = Collections.synchronizedList(new ArrayList<>());
      shared.addListener(recorder(heardShared));
      own.addListener(recorder(heardOwn));
      shared.sync().subscribe("{t}:ch"); // a client of a previous version: the shared channel only
      Scripts fromClient = new Scripts(deployment, true);
      String[] keys = {"{t}:k", "{t}:ch"};
      Script addressed = script("publish_to(KEYS[2], ARGV[1], ARGV[2])\nreturn {1}");
      fromClient.run(addressed, keys, "c1:o", "nobody-on-c1").get(5, TimeUnit.SECONDS);
      Awaitility.await().until(() -> heardShared.contains("{t}:ch nobody-on-c1"));
      own.sync().subscribe("{t}:ch:c1");
      fromClient.run(addressed, keys, "c1:o", "c1-listens").get(5, TimeUnit.SECONDS);
      // published after it on the shared channel: a copy of it there would arrive first
      fromClient
          .run(script("publish(KEYS[2], 'marker')\nreturn {1}"), keys)
          .get(5, TimeUnit.SECONDS);
      Awaitility.await().until(() -> heardShared.contains("{t}:ch marker"));
      Awaitility.await().until(() -> !heardOwn.isEmpty());
      assertThat(heardShared)
          .as("heard on its own channel, so not on the shared one")
          .containsExactly("{t}:ch nobody-on-c1", "{t}:ch marker");
      assertThat(heardOwn).containsExactly("{t}:ch:c1 c1-listens");
    } finally {
      deployment.close();
      timer.shutdown();
      client.shutdown();
    }
  }

  @Test
  void aPatternSubscriberDoesNotCountAsTheAddresseeHearingARecordedWakeUp(RedisServer redis)
      throws Exception {
    RedisClient client = RedisClient.create(redis.uri());
    SystemTimer timer = new SystemTimer();
    SingleServer deployment = deployment(redis, timer);
    try (StatefulRedisPubSubConnection<String, String> shared = client.connectPubSub();
        StatefulRedisPubSubConnection<String, String> monitor = client.connectPubSub()) {
      List<String> heard = Collections.synchronizedList(new ArrayList<>());
      shared.addListener(recorder(heard));
      shared.sync().subscribe("{t}:ch"); // a client of a previous version: the shared channel only
      // a monitoring tool: PUBLISH counts it among the addressed channel's receivers
      monitor.sync().psubscribe("*");
      Scripts fromClient = new Scripts(deployment, true);
      String[] keys = {"{t}:k", "{t}:ch"};
      fromClient
          .run(script("publish_to(KEYS[2], ARGV[1], ARGV[2])\nreturn {1}"), keys, "c1:o", "turn")
          .get(5, TimeUnit.SECONDS);
      // nobody subscribes c1's own channel (a pattern is not c1): the shared one carries it
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> heard.contains("{t}:ch turn"));
      assertThat(heard).containsExactly("{t}:ch turn");
    } finally {
      deployment.close();
      timer.shutdown();
      client.shutdown();
    }
  }

  /** The deployment a test's own {@link Scripts} run on (a recheck of a minute, as the class's). */
  /** A listener that adds each message it hears to {@code heard} as "channel message". */
  private static RedisPubSubAdapter<String, String> recorder(List<String> heard) {
    return new RedisPubSubAdapter<>() {
      @Override
      public void message(String channel, String message) {
        heard.add(channel + " " + message);
      }
    };
  }

  private static SingleServer deployment(RedisServer redis, SystemTimer timer) {
    return SingleServer.connect(
        redis.uri(),
        new ClientSetup(
            new Settings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofMinutes(1)),
            Clock.SYSTEM,
            timer,
            "warden-scripts-it",
            null));
  }

  /** A Warden's client id, from its connections' name. */
  private static String id(String connectionName) {
    assertThat(connectionName).startsWith("warden-");
    return connectionName.substring("warden-".length());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A script: the prelude, then {@code source}. */
  private static Script script(String source) {
    return new Script("test", Script.prelude() + source + "\n", null);
  }

  private static Object twin(RedisServer redis, String reply) {
    Script script = script("publish('ch', 'm')\n" + reply).recording();
    return redis.redis().eval(script.body(), ScriptOutputType.MULTI, new String[0]);
  }

  private static String failure(RedisServer redis, Script script) {
    try {
      redis.redis().eval(script.body(), ScriptOutputType.MULTI, new String[0]);
    } catch (RedisCommandExecutionException e) {
      return e.getMessage();
    }
    throw new AssertionError("script " + script.name() + " did not fail");
  }

  /** One SLOWLOG entry: the command in lower case, its arguments and the client's name. */
  private record Entry(String command, List<String> args, String client) {}

  /** The slow log, oldest first. */
  private static List<Entry> slowlog(RedisServer redis) {
    List<Entry> entries = new ArrayList<>();
    for (Object raw : redis.redis().slowlogGet(1000)) {
      List<?> entry = (List<?>) raw;
      List<String> args = ((List<?>) entry.get(3)).stream().map(String::valueOf).toList();
      entries.add(
          new Entry(
              args.get(0).toLowerCase(java.util.Locale.ROOT), args, String.valueOf(entry.get(5))));
    }
    Collections.reverse(entries);
    return entries;
  }
}
