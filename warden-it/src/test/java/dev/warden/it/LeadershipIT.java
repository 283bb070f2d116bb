package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.Leadership;
import dev.warden.Leadership.Reason;
import dev.warden.Warden;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Warden#leadership(String)} against a real redis-server: one leader at a time, terms that
 * strictly rise, a leader told when its lease is lost (paused by a silent network), leadership that
 * moves when the leader stops, and a candidate that leaves nothing behind.
 */
@ExtendWith(WardenExtension.class)
class LeadershipIT {
  private static final String KEY = "warden:{scheduler}:lock";
  private static final Duration BOUND = Duration.ofSeconds(15);

  /** What the callbacks of several candidates said, in the order they said it. */
  private static final class Log {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Long> terms = new CopyOnWriteArrayList<>();

    Leadership candidate(Warden warden, String who) {
      return warden
          .leadership("scheduler")
          .onElected(
              term -> {
                terms.add(term);
                events.add("elected " + who + " " + term);
              })
          .onRevoked((term, reason) -> events.add("revoked " + who + " " + term + " " + reason));
    }
  }

  /**
   * A store that takes a write only if its term is at least the highest it has seen: what guards a
   * leader's work against a deposed leader that does not know it yet.
   */
  private static final class FencedStore {
    private long highest = -1;
    final List<String> accepted = new ArrayList<>();

    synchronized boolean write(long term, String what) {
      if (term < highest) {
        return false;
      }
      highest = term;
      accepted.add(term + " " + what);
      return true;
    }
  }

  @Test
  void aSingleCandidateLeadsWithTheFencingTokenOfItsHoldAsItsTerm(
      RedisServer redis, Warden warden, WardenFactory wardens) throws Exception {
    Log log = new Log();
    try (Leadership leadership = log.candidate(warden, "a")) {
      assertThat(leadership.isLeader()).isFalse();
      assertThat(leadership.term()).isEmpty();

      leadership.start();

      await().atMost(BOUND).until(leadership::isLeader);
      long term = leadership.term().orElseThrow();
      assertThat(wardens.create().inspect("scheduler").currentToken()).isEqualTo(term);
      await().atMost(BOUND).until(() -> log.events.equals(List.of("elected a " + term)));
      assertThat(leadership.name()).isEqualTo("scheduler");
    }
    assertThat(redis.redis().exists(KEY)).isZero();
    assertThat(log.events).last().asString().endsWith(" STOPPED");
  }

  @Test
  void leadershipMovesWhenTheLeaderStopsWithTermsStrictlyRisingAndNoOverlap(WardenFactory wardens)
      throws Exception {
    Log log = new Log();
    List<Leadership> candidates = new ArrayList<>();
    for (String who : List.of("a", "b", "c")) {
      candidates.add(log.candidate(wardens.create(), who).start());
    }
    for (int round = 1; round <= 3; round++) {
      int electedSoFar = round;
      await().atMost(BOUND).until(() -> log.terms.size() == electedSoFar);
      Leadership leader =
          candidates.stream().filter(Leadership::isLeader).findFirst().orElseThrow();
      assertThat(candidates.stream().filter(Leadership::isLeader)).hasSize(1);

      long started = System.nanoTime();
      leader.close(); // revoked runs, then the lock is released: the next one leads at once
      candidates.remove(leader);
      if (!candidates.isEmpty()) {
        await().atMost(BOUND).until(() -> log.terms.size() == electedSoFar + 1);
        // well before the 30 s lease would have run out
        assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(10));
      }
    }
    assertThat(log.terms).hasSize(3).isSorted().doesNotHaveDuplicates();
    // each leadership's end was told (and its callback returned) before the next began
    for (int i = 0; i + 1 < log.events.size(); i += 2) {
      String elected = log.events.get(i);
      String revoked = log.events.get(i + 1);
      assertThat(elected).startsWith("elected");
      assertThat(revoked).startsWith("revoked").endsWith(" STOPPED");
      assertThat(revoked.split(" ", -1)[2]).isEqualTo(elected.split(" ", -1)[2]);
    }
  }

  @Test
  void aPausedLeaderIsToldItsLeaseWasLostAndItsLateWorkIsRefusedByTheTermGuard(RedisServer redis)
      throws Exception {
    FencedStore store = new FencedStore();
    Log log = new Log();
    CompletableFuture<Void> toldA = new CompletableFuture<>();
    AtomicLong termA = new AtomicLong(-1);
    try (FaultProxy proxy = FaultProxy.start(redis);
        Warden wardenA =
            Warden.builder()
                .uri(proxy.uri())
                .watchdogTimeout(Duration.ofSeconds(1))
                .commandTimeout(Duration.ofMillis(300))
                .build();
        Warden wardenB =
            Warden.builder().uri(redis.uri()).watchdogTimeout(Duration.ofSeconds(1)).build();
        Leadership a =
            wardenA
                .leadership("scheduler")
                .onElected(termA::set)
                .onRevoked(
                    (term, reason) -> {
                      log.events.add("revoked a " + term + " " + reason);
                      toldA.complete(null);
                    })
                .start()) {
      await().atMost(BOUND).until(a::isLeader);
      assertThat(store.write(termA.get(), "a's work")).isTrue();
      try (Leadership b = log.candidate(wardenB, "b").start()) {
        proxy.blackhole(); // a can no longer renew: as if paused

        toldA.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(a.isLeader()).isFalse();
        assertThat(log.events).contains("revoked a " + termA.get() + " LEASE_LOST");
        await().atMost(BOUND).until(b::isLeader);
        long termB = b.term().orElseThrow();
        assertThat(termB).isGreaterThan(termA.get());
        assertThat(store.write(termB, "b's work")).isTrue();

        // a's work in flight when it was deposed lands late: the term guard refuses it
        assertThat(store.write(termA.get(), "a's late work")).isFalse();
        assertThat(store.accepted).containsExactly(termA.get() + " a's work", termB + " b's work");
        proxy.heal();
      }
    }
  }

  @Test
  void aCandidateThatStopsWhileWaitingLeavesNothingHeldAndIsNeverElected(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Log log = new Log();
    Leadership a = log.candidate(wardens.create(), "a").start();
    await().atMost(BOUND).until(a::isLeader);
    Leadership b = log.candidate(wardens.create(), "b").start();
    await().atMost(BOUND).until(() -> wardens.create().inspect("scheduler").waitingClients() == 1);

    b.close();
    a.close();

    assertThat(wardens.create().inspect("scheduler").holders()).isEmpty();
    // the turn the release reserved for b's client (it had been refused) runs out with the key
    await().atMost(BOUND).until(() -> redis.redis().exists(KEY) == 0);
    assertThat(log.events).noneMatch(event -> event.startsWith("elected b"));
    assertThat(b.isLeader()).isFalse();
    assertThatThrownBy(b::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closingTheWardenEndsTheLeadershipAndLeavesTheLockToExpire(
      RedisServer redis, WardenFactory wardens) throws Exception {
    Log log = new Log();
    Warden warden = wardens.create();
    Leadership leadership = log.candidate(warden, "a").start();
    await().atMost(BOUND).until(leadership::isLeader);
    long term = leadership.term().orElseThrow();

    warden.close();

    await().atMost(BOUND).until(() -> log.events.contains("revoked a " + term + " STOPPED"));
    assertThat(leadership.isLeader()).isFalse();
    assertThat(redis.redis().pttl(KEY)).isPositive();
    leadership.close(); // a no-op now
  }

  @Test
  void callbacksAreRegisteredBeforeStartAndBadInputIsRefused(Warden warden) {
    assertThatThrownBy(() -> warden.leadership(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> warden.leadership("a{b}"))
        .isInstanceOf(IllegalArgumentException.class);
    Leadership leadership = warden.leadership("scheduler");
    assertThatThrownBy(() -> leadership.onElected(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("elected");
    leadership.start();
    assertThatThrownBy(() -> leadership.onRevoked((term, reason) -> {}))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(leadership::start).isInstanceOf(IllegalStateException.class);
    leadership.close();
    leadership.close();
  }

  /** The example of docs/locks.md, run as written there. */
  static final class Scheduler {
    final List<String> did = new CopyOnWriteArrayList<>();

    void start(long term) {
      did.add("start " + term);
    }

    void stop() {
      did.add("stop");
    }
  }

  @Test
  void theReadmeExampleRunsAsShown(Warden warden) {
    Scheduler scheduler = new Scheduler();
    // example leadership: begin
    Leadership leadership =
        warden
            .leadership("billing-scheduler")
            .onElected(term -> scheduler.start(term)) // term: the hold's fencing token
            .onRevoked((term, reason) -> scheduler.stop()); // LEASE_LOST or STOPPED
    leadership.start(); // campaigns without blocking a thread
    // example leadership: end
    await().atMost(BOUND).until(leadership::isLeader);
    long term = leadership.term().orElseThrow();
    leadership.close();
    assertThat(scheduler.did).containsExactly("start " + term, "stop");
    DocExamples.assertShown(
        Path.of("../docs/locks.md"),
        "leadership",
        Path.of("src/test/java/dev/warden/it/LeadershipIT.java"));
    assertThat(Reason.values()).containsExactly(Reason.LEASE_LOST, Reason.STOPPED);
  }
}
