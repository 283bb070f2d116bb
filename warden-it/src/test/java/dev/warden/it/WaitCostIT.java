package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.KillArgs;
import io.lettuce.core.Range;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What parked acquisitions cost Redis while they wait, from {@code INFO commandstats}: counts over
 * a window of seconds, not timings. One client's parked waiters of one lock share one re-check
 * (made by the first of them), whatever their number, which backs off to once a second while the
 * lock stays held elsewhere; none at all while another owner of the same client holds the lock; the
 * fair lock adds one heartbeat call per second for all of them. Then every waiter gets the lock
 * once, in the order it started waiting. A release that no message announces is still found within
 * the back-off's cap.
 *
 * <p>The holders take fixed leases, so that no lease keeper renews anything in the window.
 */
@ExtendWith(WardenExtension.class)
class WaitCostIT {
  private static final Duration RECHECK = Duration.ofMillis(200); // Warden's default
  private static final Duration LONG = Duration.ofMinutes(2);
  private static final int SLACK = 3; // a re-check on either edge of the window, and one more

  /** Long enough for a line's back-off to reach its cap: re-checks at 0.2, 0.6, 1.4, 2.4 s, ... */
  private static final Duration BACKING_OFF = Duration.ofMillis(2500);

  /** The window over which the calls are counted, once backed off: 5 re-checks at 1 s. */
  private static final Duration WINDOW = Duration.ofSeconds(5);

  @ParameterizedTest
  @ValueSource(ints = {1, 100, 1000})
  void parkedWaitersOfAClientCostAboutOneScriptCallPerSecondOnceBackedOff(
      int count, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "parked-" + count;
    LockHandle held = wardens.create().lock(name).acquireAsync(Duration.ZERO, LONG).get();
    Warden waiting = wardens.create();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = startWaiters(waiting.lock(name), count, order);
    await().atMost(Duration.ofSeconds(30)).until(() -> waiting.stats().parkedWaiters() == count);
    stayParked(waiting, count, BACKING_OFF);

    long scripts = scriptsWhileParked(redis, List.of(waiting), count, WINDOW);
    assertThat(scripts)
        .as("script calls in 5 s for %d parked waiters backed off to 1 s", count)
        .isLessThanOrEqualTo(5 + SLACK);

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    // Each once, first come first served: the release wakes the first, but the line's re-check
    // may race it for the lock (as any re-check may); from then on each hands over to the next
    assertThat(order).hasSize(count).doesNotHaveDuplicates();
    assertThat(firstOutOfOrder(order.subList(Math.min(3, count), count), Math.min(3, count)))
        .isEqualTo(-1);
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16})
  void everyClientsParkedWaitersCostAboutOneScriptCallPerSecondOnceBackedOff(
      int clients, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "parked-in-" + clients + "-clients";
    int each = 400 / clients;
    LockHandle held = wardens.create().lock(name).acquireAsync(Duration.ZERO, LONG).get();
    List<Warden> waiting = new ArrayList<>();
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    List<Integer> order = new CopyOnWriteArrayList<>();
    for (int c = 0; c < clients; c++) {
      Warden client = wardens.create();
      waiting.add(client);
      waiters.addAll(startWaiters(client.lock(name), each, order));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> waiting.stream().allMatch(w -> w.stats().parkedWaiters() == each));
    for (Warden client : waiting) {
      stayParked(client, each, BACKING_OFF.dividedBy(clients));
    }

    long scripts = scriptsWhileParked(redis, waiting, each, WINDOW);
    assertThat(scripts)
        .as("script calls in 5 s for %d clients of %d parked waiters, backed off", clients, each)
        .isLessThanOrEqualTo(clients * (5 + 1) + SLACK);

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(order).hasSize(clients * each);
  }

  /**
   * W8's steady state, in commands: a re-check of a lock another client holds reads the lock's hash
   * (HMGET) and nothing else, once the refusal that read the holder's lease is known (issue 21: at
   * most one Redis command per second per lock per waiting client). Without lock-acquire.lua's
   * hints each re-check also ran EXISTS and PTTL: 3 commands.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aReCheckOfALockHeldByAnotherClientIsOneHmgetOnceItsLeaseIsKnown(
      int clients, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "one-command-" + clients;
    int each = 100;
    LockHandle held = wardens.create().lock(name).acquireAsync(Duration.ZERO, LONG).get();
    List<Warden> waiting = new ArrayList<>();
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    List<Integer> order = new CopyOnWriteArrayList<>();
    for (int c = 0; c < clients; c++) {
      Warden client = wardens.create();
      waiting.add(client);
      waiters.addAll(startWaiters(client.lock(name), each, order));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> waiting.stream().allMatch(w -> w.stats().parkedWaiters() == each));
    for (Warden client : waiting) {
      stayParked(client, each, BACKING_OFF.dividedBy(clients));
    }

    redis.redis().configResetstat();
    await()
        .during(WINDOW)
        .atMost(WINDOW.multipliedBy(2))
        .until(() -> waiting.stream().allMatch(w -> w.stats().acquisitions() == each));
    Map<String, Long> calls = redis.commandCalls(); // read once: the counts below agree
    long scripts = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
    System.out.printf("WaitCostIT: %d clients x %d waiters, in 5 s: %s%n", clients, each, calls);
    assertThat(scripts)
        .as("re-checks in 5 s for %d clients of %d parked waiters, backed off", clients, each)
        .isPositive()
        .isLessThanOrEqualTo(clients * (5 + 1) + SLACK);
    assertThat(calls.getOrDefault("hmget", 0L)).as("one HMGET per re-check").isEqualTo(scripts);
    assertThat(calls).doesNotContainKeys("exists", "pttl");
    long commands =
        calls.entrySet().stream()
            .filter(call -> !call.getKey().startsWith("eval"))
            .filter(call -> !call.getKey().startsWith("config") && !call.getKey().equals("info"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    assertThat(commands).as("Redis commands besides the script calls").isEqualTo(scripts);

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(order).hasSize(clients * each); // each client numbers its own from 0
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 100})
  void aReleaseNoMessageAnnouncesIsFoundByABackedOffLineWithinASecond(
      int count, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "unannounced-" + count;
    wardens.create().lock(name).acquireAsync(Duration.ZERO, LONG).get();
    Warden waiting = wardens.create();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = startWaiters(waiting.lock(name), count, order);
    await().atMost(Duration.ofSeconds(30)).until(() -> waiting.stats().parkedWaiters() == count);
    stayParked(waiting, count, BACKING_OFF);
    redis.redis().configResetstat();

    // The lock disappears without a release message (as a wake-up lost on its way would leave
    // it): only the line's re-check, now once a second, can find it free
    long deletedAt = System.nanoTime();
    assertThat(redis.redis().del("warden:{" + name + "}:lock")).isEqualTo(1);
    await().atMost(Duration.ofSeconds(3)).until(() -> !order.isEmpty());
    long foundMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deletedAt);
    System.out.printf("WaitCostIT: an unannounced release found after %d ms%n", foundMillis);
    assertThat(foundMillis)
        .as("within the cap (1 s), with room for a loaded machine")
        .isLessThan(2_000);
    assertThat(order.get(0)).as("by the line's first").isZero();

    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(order).hasSize(count);
    assertThat(firstOutOfOrder(order, 0)).as("then handed over in turn").isEqualTo(-1);
  }

  @Test
  void aReSubscriptionMakesABackedOffLineCheckAtOnce(RedisServer redis, WardenFactory wardens)
      throws Exception {
    String name = "resubscribed";
    LockHandle held = wardens.create().lock(name).acquireAsync(Duration.ZERO, LONG).get();
    Warden waiting = wardens.create();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = startWaiters(waiting.lock(name), 10, order);
    await().atMost(Duration.ofSeconds(30)).until(() -> waiting.stats().parkedWaiters() == 10);
    stayParked(waiting, 10, BACKING_OFF);
    redis.redis().configResetstat();

    // the pub/sub connection drops: a release may have been missed meanwhile
    assertThat(redis.redis().clientKill(KillArgs.Builder.typePubsub())).isPositive();
    await().atMost(Duration.ofSeconds(10)).until(() -> scripts(redis) >= 1);
    assertThat(order).isEmpty(); // still held: refused, and parked again
    await().atMost(Duration.ofSeconds(10)).until(() -> waiting.stats().parkedWaiters() == 10);

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(order).hasSize(10);
  }

  @Test
  void parkedWaitersAskRedisNothingWhileAnotherOwnerOfTheirClientHoldsTheLock(
      RedisServer redis, Warden warden) throws Exception {
    int count = 100;
    DistributedLock lock = warden.lock("held-here");
    LockHandle held = lock.acquireAsync(Duration.ZERO, LONG).get();
    redis.redis().configResetstat();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = startWaiters(lock, count, order);
    await().atMost(Duration.ofSeconds(10)).until(() -> warden.stats().parkedWaiters() == count);
    await()
        .during(RECHECK.multipliedBy(10))
        .atMost(RECHECK.multipliedBy(20))
        .until(() -> warden.stats().parkedWaiters() == count);
    assertThat(redis.commandCalls())
        .as("not when they start, nor when subscribed, nor at their re-checks")
        .doesNotContainKeys("evalsha", "eval");

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(order).hasSize(count);
    assertThat(firstOutOfOrder(order, 0)).as("handed over in turn").isEqualTo(-1);
  }

  @ParameterizedTest
  @ValueSource(ints = {100, 1000})
  void queuedFairWaitersOfAClientCostOneScriptCallPerIntervalAndOneHeartbeatPerSecond(
      int count, RedisServer redis, WardenFactory wardens) throws Exception {
    String name = "fair-parked-" + count;
    String beats = "warden:{" + name + "}:fair:beats";
    LockHandle held = wardens.create().fairLock(name).acquireAsync(Duration.ZERO, LONG).get();
    Warden waiting = wardens.create();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> waiters = startWaiters(waiting.fairLock(name), count, order);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> waiting.stats().parkedWaiters() == count && redis.redis().zcard(beats) == count);

    stayParked(waiting, count, BACKING_OFF);
    // longer than a heartbeat timeout (3 s): every waiter's heartbeat must have been refreshed
    Duration window = Duration.ofSeconds(4);
    long scripts = scriptsWhileParked(redis, List.of(waiting), count, window);
    assertThat(scripts)
        .as("script calls in 4 s for %d queued waiters: 4 re-checks and 4 heartbeats", count)
        .isLessThanOrEqualTo(4 + 4 + SLACK);
    long now = serverMillis(redis);
    assertThat(redis.redis().zcount(beats, Range.create(now, Double.MAX_VALUE)))
        .as("every waiter's heartbeat is alive")
        .isEqualTo(count);

    held.close();
    CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(order).hasSize(count);
    assertThat(firstOutOfOrder(order, 0)).as("strictly in the order they queued").isEqualTo(-1);
  }

  /**
   * Starts {@code count} asynchronous acquisitions of {@code lock}, one after the other (so they
   * queue in that order); each records its number once it holds the lock, and closes its handle.
   */
  private static List<CompletableFuture<Void>> startWaiters(
      DistributedLock lock, int count, List<Integer> order) {
    List<CompletableFuture<Void>> waiters = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int number = i;
      waiters.add(
          lock.acquireAsync(LONG, LONG)
              .thenCompose(
                  handle -> {
                    order.add(number);
                    return handle.closeAsync();
                  }));
    }
    return waiters;
  }

  /** Watches {@code count} waiters of a client stay waiting for {@code during}. */
  private static void stayParked(Warden waiting, int count, Duration during) {
    await()
        .during(during)
        .atMost(during.multipliedBy(2).plusSeconds(1))
        .until(() -> waiting.stats().acquisitions() == count); // all still waiting
  }

  /**
   * Resets the statistics, watches {@code count} waiters of each client stay waiting for {@code
   * window}, and returns the script calls Redis ran meanwhile.
   */
  private static long scriptsWhileParked(
      RedisServer redis, List<Warden> waiting, int count, Duration window) {
    redis.redis().configResetstat();
    await()
        .during(window)
        .atMost(window.multipliedBy(2))
        .until(() -> waiting.stream().allMatch(w -> w.stats().acquisitions() == count));
    long scripts = scripts(redis);
    System.out.printf(
        "WaitCostIT: %d clients x %d waiters: %d script calls in %d ms%n",
        waiting.size(), count, scripts, window.toMillis());
    return scripts;
  }

  /** The script calls Redis ran since its statistics were reset. */
  private static long scripts(RedisServer redis) {
    return redis.commandCalls().entrySet().stream()
        .filter(call -> call.getKey().startsWith("eval"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static long serverMillis(RedisServer redis) {
    List<String> time = redis.redis().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /**
   * The first place where {@code order} is not {@code from, from + 1, ...}, or -1 if there is none.
   */
  private static int firstOutOfOrder(List<Integer> order, int from) {
    return IntStream.range(0, order.size())
        .filter(i -> order.get(i) != from + i)
        .findFirst()
        .orElse(-1);
  }
}
