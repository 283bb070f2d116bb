package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.LockInfo;
import dev.warden.Warden;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failovers on a 3+3 Redis Cluster, each test on its own shard (so that no test waits out another's
 * failover spacing): a script's first call on a new master, a graceful failover under contention,
 * and a hold lost because the promoted replica never had it. Measured timings are printed.
 */
class ClusterFailoverIT {
  private static RedisCluster cluster;
  private static List<RedisServer> shards;
  private static ExecutorService threads;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
    shards = cluster.masters();
    threads = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopCluster() {
    threads.shutdownNow();
    cluster.close();
  }

  @Test
  void theFirstScriptOnANewMasterCostsNoscriptAndOneEvalAndAppliesOnce() throws Exception {
    RedisServer master = shards.get(0);
    try (Warden warden = ClusterNames.warden(cluster, Duration.ofSeconds(30));
        Warden left = ClusterNames.warden(cluster, Duration.ofSeconds(30))) {
      String name = ClusterNames.on(cluster, master, "noscript");
      DistributedLock lock = warden.lock(name);
      // an explicit lease: the lease keeper renews nothing, so no other script reaches the new
      // master and the counts below are the acquisition's alone
      lock.lock(60, TimeUnit.SECONDS);
      try {
        LockInfo before = warden.inspect(name);
        // another client waits in vain and gives up: its subscription must not come back
        assertThat(left.lock(name).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> left.stats().subscriptions() == 0);
        RedisServer replica = cluster.replicaOf(master);
        cluster.failover(replica, RedisCluster.Mode.GRACEFUL);
        String channel = "warden:{" + name + "}:lock:released";
        await()
            .during(Duration.ofMillis(1500))
            .atMost(Duration.ofSeconds(3))
            .until(
                () ->
                    replica.redis().pubsubShardNumsub(channel).get(channel) == 0L
                        && master.redis().pubsubShardNumsub(channel).get(channel) == 0L);
        long[] evalshaBefore = ClusterNames.commandStats(replica, "evalsha");
        long[] evalBefore = ClusterNames.commandStats(replica, "eval");

        lock.lock(60, TimeUnit.SECONDS); // reentrant: the script runs on the new master

        long[] evalshaAfter = ClusterNames.commandStats(replica, "evalsha");
        long[] evalAfter = ClusterNames.commandStats(replica, "eval");
        assertThat(evalshaAfter[1] - evalshaBefore[1]).as("EVALSHA answered NOSCRIPT").isOne();
        assertThat(evalAfter[0] - evalBefore[0]).as("EVAL sent once").isOne();
        LockInfo after = warden.inspect(name);
        assertThat(after.holders().values()).as("hold count, applied once").containsExactly(2);
        assertThat(after.currentToken())
            .as("the token of the outer hold")
            .isEqualTo(before.currentToken());
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
      } finally {
        lock.unlock();
      }
      assertThat(lock.isLocked()).isFalse();
    }
  }

  @Test
  void aGracefulFailoverUnderContentionLosesNoHoldAndMovesTheWakeUps() throws Exception {
    RedisServer master = shards.get(1);
    String name = ClusterNames.on(cluster, master, "graceful");
    // re-checks 30 s apart: after the failover, the other client's waiters get the lock only if
    // their sharded subscription followed the slot
    List<Warden> clients = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      clients.add(
          Warden.builder()
              .cluster(cluster.seeds().toArray(String[]::new))
              .recheckInterval(Duration.ofSeconds(30))
              .build());
    }
    try {
      CriticalSection section = new CriticalSection();
      AtomicInteger total = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong switched = new AtomicLong(Long.MAX_VALUE);
      AtomicLong firstAfterSwitch = new AtomicLong(Long.MAX_VALUE);
      AtomicInteger[] afterSwitch = {new AtomicInteger(), new AtomicInteger()};
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<CompletableFuture<Void>> workers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int client = t % 2;
        DistributedLock lock = clients.get(client).lock(name);
        workers.add(
            CompletableFuture.runAsync(
                () -> {
                  while (!stop.get()) {
                    try {
                      lock.lock();
                      try {
                        section.enter();
                        total.incrementAndGet();
                        if (System.nanoTime() > switched.get()) {
                          firstAfterSwitch.compareAndSet(Long.MAX_VALUE, System.nanoTime());
                          afterSwitch[client].incrementAndGet();
                        }
                      } finally {
                        lock.unlock();
                      }
                    } catch (RuntimeException e) {
                      failures.add(e);
                      return;
                    }
                  }
                },
                threads));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> total.get() >= 50);
      RedisServer replica = cluster.replicaOf(master);
      long started = System.nanoTime();
      cluster.failover(replica, RedisCluster.Mode.GRACEFUL);
      switched.set(System.nanoTime());
      await()
          .atMost(Duration.ofSeconds(15))
          // when it times out, say which client was left waiting and how its wake-ups stood
          .conditionEvaluationListener(
              condition -> {
                if (condition.getRemainingTimeInMS() <= condition.getPollInterval().toMillis()) {
                  System.out.printf(
                      "[cluster] after the graceful failover: %d and %d acquisitions; stats %s"
                          + " and %s%n",
                      afterSwitch[0].get(),
                      afterSwitch[1].get(),
                      clients.get(0).stats(),
                      clients.get(1).stats());
                  String released = "warden:{" + name + "}:lock:released";
                  for (RedisServer node : cluster.nodes()) {
                    System.out.printf(
                        "[cluster]   %s %s: %s sharded subscribers%n",
                        node,
                        node.redis().role().get(0),
                        node.redis().pubsubShardNumsub(released).get(released));
                  }
                }
              })
          .until(
              () ->
                  (afterSwitch[0].get() >= 20 && afterSwitch[1].get() >= 20)
                      || !failures.isEmpty());
      stop.set(true);
      CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(failures).as("no hold lost, no call failed").isEmpty();
      System.out.printf(
          "[cluster] graceful failover took %d ms; first acquisition %d ms after it; %d and %d"
              + " acquisitions by each client after it%n",
          TimeUnit.NANOSECONDS.toMillis(switched.get() - started),
          TimeUnit.NANOSECONDS.toMillis(firstAfterSwitch.get() - switched.get()),
          afterSwitch[0].get(),
          afterSwitch[1].get());
      section.assertMutualExclusion(total.get());
      assertThat(clients.get(0).lock(name).isLocked()).isFalse();
      String channel = "warden:{" + name + "}:lock:released";
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(master.redis().pubsubShardNumsub(channel))
                      .as("no subscription left on the demoted master")
                      .containsEntry(channel, 0L));
    } finally {
      clients.forEach(Warden::close);
    }
  }

  @Test
  void aHoldTheNewMasterNeverHadIsReportedLostWithinASecondOfTheSwitch() throws Exception {
    RedisServer master = shards.get(2);
    // a 30 s lease is renewed every 10 s: a report within 3 s comes from the topology change
    try (Warden holder = ClusterNames.warden(cluster, Duration.ofSeconds(30));
        Warden other = ClusterNames.warden(cluster, Duration.ofSeconds(30))) {
      String handleName = ClusterNames.on(cluster, master, "lost-handle");
      String lockName = ClusterNames.on(cluster, master, "lost-lock-" + handleName);
      DistributedLock threadBound = holder.lock(lockName);
      List<LockHandle> held = new ArrayList<>();
      long started = System.nanoTime();
      cluster.loseWrites(
          master,
          () -> {
            try {
              held.add(holder.lock(handleName).acquire(Duration.ofSeconds(5)));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
            threadBound.lock();
          });
      long switched = System.nanoTime();
      LockHandle handle = held.get(0);
      long lostAt =
          handle
              .leaseLost()
              .toCompletableFuture()
              .thenApply(ignored -> System.nanoTime())
              .get(10, TimeUnit.SECONDS);
      System.out.printf(
          "[cluster] lost hold reported %d ms after the takeover was seen by every node"
              + " (%d ms after the writes began)%n",
          TimeUnit.NANOSECONDS.toMillis(lostAt - switched),
          TimeUnit.NANOSECONDS.toMillis(lostAt - started));
      assertThat(Duration.ofNanos(lostAt - switched))
          .as("reported by the re-check after the switch, not by a renewal 10 s later")
          .isLessThan(Duration.ofSeconds(3));
      assertThat(handle.isHeld()).isFalse();
      assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
      assertThatThrownBy(threadBound::unlock).isInstanceOf(LeaseExpiredException.class);
      DistributedLock taken = other.lock(handleName);
      assertThat(taken.tryLock(5, TimeUnit.SECONDS)).as("free on the new master").isTrue();
      taken.unlock();
    }
  }
}
