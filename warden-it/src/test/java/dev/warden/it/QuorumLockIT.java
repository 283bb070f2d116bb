package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The quorum lock (Redlock) on 5 independent redis-servers, the last 3 reached through a {@link
 * FaultProxy}: the quorum table over every subset of pre-held deployments, deployments down or
 * slow, the majority lost while held, mutual exclusion across clients, and fencing tokens across
 * majorities that overlap in one deployment.
 */
class QuorumLockIT {
  private static final int N = 5;
  private static final int DIRECT = 2; // servers 0 and 1; 2, 3 and 4 behind proxies
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration WATCHDOG = Duration.ofSeconds(1);

  private static final List<RedisServer> servers = new ArrayList<>();
  private static final List<FaultProxy> proxies = new ArrayList<>();
  private static final List<Warden> wardens = new ArrayList<>();

  @BeforeAll
  static void startFiveDeployments() {
    for (int i = 0; i < N; i++) {
      servers.add(RedisServer.start());
    }
    for (int i = DIRECT; i < N; i++) {
      proxies.add(FaultProxy.start(servers.get(i)));
    }
    wardens.addAll(connectAll());
  }

  /** One client: a Warden on each deployment (the last 3 through their proxies). */
  private static List<Warden> connectAll() {
    List<Warden> client = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      String uri = i < DIRECT ? servers.get(i).uri() : proxies.get(i - DIRECT).uri();
      client.add(
          Warden.builder()
              .uri(uri)
              .commandTimeout(COMMAND_TIMEOUT)
              .watchdogTimeout(WATCHDOG)
              .build());
    }
    return client;
  }

  @AfterAll
  static void stopAll() {
    wardens.forEach(Warden::close);
    proxies.forEach(FaultProxy::close);
    servers.forEach(RedisServer::close);
  }

  @BeforeEach
  void healAndEmpty() {
    proxies.forEach(FaultProxy::heal);
    servers.forEach(RedisServer::flushAll);
  }

  private static DistributedLock quorum(List<Warden> client, String name) {
    DistributedLock[] parts = new DistributedLock[N];
    for (int i = 0; i < N; i++) {
      parts[i] = client.get(i).lock(name);
    }
    return Warden.quorumLock(parts);
  }

  private static boolean lockKeyOn(int server, String name) {
    return servers.get(server).redis().exists("warden:{" + name + "}:lock") == 1;
  }

  private static void awaitNoLockKeyAnywhere(String name) {
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              for (int i = 0; i < N; i++) {
                assertThat(lockKeyOn(i, name)).as("lock key on server %d", i).isFalse();
              }
            });
  }

  @Test
  void everySubsetOfPreHeldDeploymentsGivesTheLockExactlyWhenTheFreeOnesAreAMajority()
      throws Exception {
    DistributedLock lock = quorum(wardens, "q-subsets");
    for (int mask = 0; mask < (1 << N); mask++) {
      List<LockHandle> preHeld = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        if ((mask & (1 << i)) != 0) {
          preHeld.add(
              wardens
                  .get(i)
                  .lock("q-subsets")
                  .tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                  .orElseThrow());
        }
      }
      int free = N - Integer.bitCount(mask);
      boolean got = lock.tryLock(0, 10, TimeUnit.SECONDS);
      assertThat(got)
          .as("pre-held mask %s, %d free", Integer.toBinaryString(mask), free)
          .isEqualTo(free >= 3);
      if (got) {
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
      }
      for (int i = 0; i < N; i++) {
        if ((mask & (1 << i)) == 0) {
          assertThat(lockKeyOn(i, "q-subsets"))
              .as("mask %s: free server %d after the attempt", Integer.toBinaryString(mask), i)
              .isFalse();
        }
      }
      preHeld.forEach(LockHandle::close);
    }
  }

  @Test
  void twoOfFiveDownStillAcquiresAndThreeDownFailsLeavingNothingBehind() throws Exception {
    DistributedLock lock = quorum(wardens, "q-down");
    proxies.get(1).blackhole();
    proxies.get(2).blackhole();
    assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(lockKeyOn(0, "q-down") && lockKeyOn(1, "q-down") && lockKeyOn(2, "q-down")).isTrue();
    lock.unlock(); // the 2 unreachable parts fail; 3 released is a majority
    assertThat(lockKeyOn(0, "q-down") || lockKeyOn(1, "q-down") || lockKeyOn(2, "q-down"))
        .isFalse();

    proxies.get(0).blackhole();
    long started = System.nanoTime();
    assertThat(lock.tryLock(0, 2, TimeUnit.SECONDS)).isFalse();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    // a tryLock without a wait returns within its wait plus the command timeout
    assertThat(tookMillis).isLessThan(COMMAND_TIMEOUT.toMillis() + 500);
    assertThat(lockKeyOn(0, "q-down") || lockKeyOn(1, "q-down")).isFalse();
    assertThat(lock.isHeldByCurrentThread()).isFalse();
    proxies.forEach(FaultProxy::heal);
    awaitNoLockKeyAnywhere("q-down");
  }

  @Test
  void aDelayLongerThanTheCallBoundFailsAndCleansUpEverywhere() throws Exception {
    DistributedLock lock = quorum(wardens, "q-slow");
    for (FaultProxy proxy : proxies) {
      proxy.delay(Duration.ofMillis(300));
    }
    // 250 ms lease: each call may take 25 ms; the 3 slow deployments answer after 300 ms
    assertThat(lock.tryLock(0, 250, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(lockKeyOn(0, "q-slow") || lockKeyOn(1, "q-slow")).isFalse();
    // the late grants on the slow ones are given back (or expire): nothing stays
    awaitNoLockKeyAnywhere("q-slow");
  }

  @Test
  void losingTheMajorityWhileHeldCompletesLeaseLostAndUnlockThrows() throws Exception {
    DistributedLock lock = quorum(wardens, "q-lost");
    LockHandle handle = lock.acquire(Duration.ofSeconds(5)); // renewed every third of 1 s
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !handle.leaseLost().toCompletableFuture().isDone());
    assertThat(handle.isHeld()).isTrue();
    proxies.forEach(FaultProxy::blackhole);
    handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(handle.isHeld()).isFalse();
    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    // the parts it still had are given back
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !lockKeyOn(0, "q-lost") && !lockKeyOn(1, "q-lost"));
  }

  @Test
  void aNestedLockAfterAFixedLeaseRanOutThrowsWhileAnotherOwnerHoldsTheLock() throws Exception {
    List<Warden> otherClient = connectAll();
    try {
      DistributedLock qa = quorum(wardens, "q-nested");
      DistributedLock qb = quorum(otherClient, "q-nested");
      qa.lock(300, TimeUnit.MILLISECONDS);
      // another owner takes the lock once qa's lease has run out
      LockHandle theirs = qb.tryAcquire(Duration.ofSeconds(10)).orElseThrow();
      try {
        assertThatThrownBy(qa::tryLock).isInstanceOf(LeaseExpiredException.class);
        assertThatThrownBy(() -> qa.tryLock(0, 10, TimeUnit.SECONDS))
            .isInstanceOf(LeaseExpiredException.class);
        assertThat(qa.isHeldByCurrentThread()).isFalse();
        assertThat(qa.getHoldCount()).isZero();
        assertThatThrownBy(qa::fencingToken).isInstanceOf(LeaseExpiredException.class);
        assertThat(theirs.isHeld()).isTrue();
        // the outer hold's unlock reports the loss, once; then the thread holds nothing
        assertThatThrownBy(qa::unlock).isInstanceOf(LeaseExpiredException.class);
        assertThatThrownBy(qa::unlock)
            .isInstanceOf(IllegalMonitorStateException.class)
            .isNotInstanceOf(LeaseExpiredException.class);
      } finally {
        theirs.close();
      }
      assertThat(qa.tryLock()).isTrue();
      qa.unlock();
    } finally {
      otherClient.forEach(Warden::close);
    }
  }

  @Test
  void aFixedLeaseThatRunsOutCompletesLeaseLost() throws Exception {
    DistributedLock lock = quorum(wardens, "q-fixed");
    LockHandle handle = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
    handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(handle.isHeld()).isFalse();
    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  void aNestedLockAfterAFailedRenewalThrowsInsteadOfTakingAFreshHold() throws Exception {
    DistributedLock lock = quorum(wardens, "q-renewal");
    lock.lock(); // renewed every third of 1 s
    proxies.forEach(FaultProxy::blackhole); // a majority cannot be renewed
    // the renewal fails: the hold is lost, and the parts it still had are given back
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !lockKeyOn(0, "q-renewal") && !lockKeyOn(1, "q-renewal"));
    proxies.forEach(FaultProxy::heal);
    // once the parts have expired a fresh hold could be had: the nested call must not take it
    assertThatThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS))
        .isInstanceOf(LeaseExpiredException.class);
    assertThat(lock.getHoldCount()).isZero();
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
    assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
    assertThat(lock.getHoldCount()).isEqualTo(1);
    lock.unlock();
    awaitNoLockKeyAnywhere("q-renewal");
  }

  @Test
  void threeClientsExcludeEachOtherWithAnExactCounterAndRisingTokens() throws Exception {
    List<List<Warden>> clients = List.of(wardens, connectAll(), connectAll());
    try {
      List<DistributedLock> locks = new ArrayList<>();
      clients.forEach(client -> locks.add(quorum(client, "q-mutex")));
      CriticalSection section = new CriticalSection();
      int rounds = 5;
      StartGate.run(
          6,
          rounds,
          contender -> {
            DistributedLock lock = locks.get(contender % 3);
            assertThat(lock.tryLock(60, 10, TimeUnit.SECONDS)).isTrue();
            try {
              section.enterWithToken(lock.fencingToken());
            } finally {
              lock.unlock();
            }
          });
      section.assertMutualExclusion(6 * rounds);
    } finally {
      clients.get(1).forEach(Warden::close);
      clients.get(2).forEach(Warden::close);
    }
    awaitNoLockKeyAnywhere("q-mutex");
  }

  @Test
  void tokensRiseAcrossMajoritiesThatOverlapInOneDeployment() throws Exception {
    String name = "q-fence";
    DistributedLock lock = quorum(wardens, name);
    // server 0's fence runs far ahead of the others (say its clock did)
    LockHandle first = wardens.get(0).lock(name).tryAcquire(Duration.ZERO).orElseThrow();
    first.close();
    String fence = "warden:{" + name + "}:lock:fence";
    long ahead = Long.parseLong(servers.get(0).redis().hget(fence, "c")) + 1_000_000_000L;
    servers.get(0).redis().hset(fence, "c", Long.toString(ahead));

    // majority {0, 1, 2}: 3 and 4 are held by another owner
    List<LockHandle> blockers = holdOn(name, 3, 4);
    LockHandle a = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
    long tokenA = a.fencingToken();
    a.close();
    blockers.forEach(LockHandle::close);
    assertThat(tokenA).isGreaterThanOrEqualTo(ahead);

    // majority {2, 3, 4}: only server 2 was in the first one
    blockers = holdOn(name, 0, 1);
    LockHandle b = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
    long tokenB = b.fencingToken();
    b.close();
    blockers.forEach(LockHandle::close);
    assertThat(tokenB).isGreaterThan(tokenA);
  }

  private static List<LockHandle> holdOn(String name, int... indexes) throws InterruptedException {
    List<LockHandle> held = new ArrayList<>();
    for (int i : indexes) {
      Optional<LockHandle> handle =
          wardens.get(i).lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
      held.add(handle.orElseThrow());
    }
    return held;
  }

  @Test
  void theFenceRaiseScriptRaisesAndNeverLowers() {
    var redis = servers.get(0).redis();
    String fence = "warden:{q-script}:lock:fence";
    String[] keys = {fence};
    // absent: created at the token, with the retention as its TTL
    assertThat(LuaScripts.run(redis, "quorum-fence-raise", keys, "0", "500", "60000"))
        .containsExactly(1L);
    assertThat(redis.hmget(fence, "e", "c").stream().map(v -> v.getValue()))
        .containsExactly("0", "500");
    assertThat(redis.pttl(fence)).isBetween(1L, 60_000L);
    // lower count, same epoch: unchanged
    assertThat(LuaScripts.run(redis, "quorum-fence-raise", keys, "0", "400", "60000"))
        .containsExactly(0L);
    // higher epoch wins whatever the count; a lower epoch never does
    assertThat(LuaScripts.run(redis, "quorum-fence-raise", keys, "1", "3", "60000"))
        .containsExactly(1L);
    assertThat(LuaScripts.run(redis, "quorum-fence-raise", keys, "0", "999999", "60000"))
        .containsExactly(0L);
    assertThat(redis.hmget(fence, "e", "c").stream().map(v -> v.getValue()))
        .containsExactly("1", "3");
  }

  @Test
  void badPartsAreRejectedNamingTheArgument() {
    DistributedLock a = wardens.get(0).lock("q-bad");
    assertThatThrownBy(() -> Warden.quorumLock())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("locks must not be empty");
    assertThatThrownBy(() -> Warden.quorumLock(a, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("locks[1]");
    assertThatThrownBy(() -> Warden.quorumLock(a, wardens.get(1).lock("other")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("locks[1]");
    assertThatThrownBy(() -> Warden.quorumLock(a, wardens.get(0).lock("q-bad")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same Warden");
    assertThatThrownBy(() -> Warden.quorumLock(a, wardens.get(1).fairLock("q-bad")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reentrant");
    DistributedLock lock = quorum(wardens, "q-bad");
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
  }
}
