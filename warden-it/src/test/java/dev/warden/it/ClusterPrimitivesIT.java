package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The locks and conditions on a 3+3 Redis Cluster, with names spread over all three shards and two
 * Warden instances contending: exact counters, scripts on the shard's own master, wake-ups by
 * sharded pub/sub. The semaphores and the latch run their contract suites on a cluster ({@code
 * ClusterSemaphoreContractIT}, {@code ClusterLeasedSemaphoreContractIT}, {@code
 * ClusterLatchContractIT}).
 */
class ClusterPrimitivesIT {
  private static final int CLIENTS = 2;
  private static final int ROUNDS = 25;

  private static RedisCluster cluster;
  private static Warden first;
  private static Warden second;
  private static ExecutorService threads;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start();
    first = ClusterNames.warden(cluster, Duration.ofSeconds(30));
    second = ClusterNames.warden(cluster, Duration.ofSeconds(30));
    threads = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopCluster() {
    threads.shutdownNow();
    first.close();
    second.close();
    cluster.close();
  }

  private static Warden client(int contender) {
    return contender % CLIENTS == 0 ? first : second;
  }

  @Test
  void locksOfEveryTypeExcludeOnEveryShardAndTheirScriptsRunOnTheShardsOwnMaster()
      throws Exception {
    List<RedisServer> masters = cluster.masters();
    long[] before = new long[masters.size()];
    for (int i = 0; i < masters.size(); i++) {
      before[i] = ClusterNames.commandStats(masters.get(i), "evalsha")[0];
    }
    List<BiFunction<Warden, String, DistributedLock>> types =
        List.of(
            Warden::lock,
            Warden::fairLock,
            (warden, name) -> warden.readWriteLock(name).writeLock());
    for (int type = 0; type < types.size(); type++) {
      BiFunction<Warden, String, DistributedLock> lockOf = types.get(type);
      List<String> names = ClusterNames.onEveryShard(cluster, "exclusive-" + type);
      List<CriticalSection> sections = new ArrayList<>();
      names.forEach(name -> sections.add(new CriticalSection()));
      int contenders = CLIENTS * 2 * names.size();
      StartGate.run(
          contenders,
          ROUNDS,
          contender -> {
            int shard = (contender / CLIENTS) % names.size();
            DistributedLock lock = lockOf.apply(client(contender), names.get(shard));
            lock.lock();
            try {
              lock.lock(); // reentrant on every type
              try {
                sections.get(shard).enterWithToken(lock.fencingToken());
              } finally {
                lock.unlock();
              }
            } finally {
              lock.unlock();
            }
          });
      for (CriticalSection section : sections) {
        section.assertMutualExclusion(contenders / names.size() * ROUNDS);
      }
    }
    for (int i = 0; i < masters.size(); i++) {
      assertThat(ClusterNames.commandStats(masters.get(i), "evalsha")[0])
          .as("scripts run on master %s", masters.get(i))
          .isGreaterThan(before[i] + 3L * ROUNDS);
    }
  }

  @Test
  void anUncontendedLockAndUnlockCostTwoScriptCallsOnTheirOwnMasterAloneAndNeverPublish() {
    List<RedisServer> masters = cluster.masters();
    List<String> names = ClusterNames.onEveryShard(cluster, "cost");
    int pairs = 50;
    for (int shard = 0; shard < names.size(); shard++) {
      DistributedLock lock = first.lock(names.get(shard));
      lock.lock(); // loads the scripts on this master
      lock.unlock();
      long[] evalsha = new long[masters.size()];
      long[] spublish = new long[masters.size()];
      for (int i = 0; i < masters.size(); i++) {
        evalsha[i] = ClusterNames.commandStats(masters.get(i), "evalsha")[0];
        spublish[i] = ClusterNames.commandStats(masters.get(i), "spublish")[0];
      }
      for (int i = 0; i < pairs; i++) {
        lock.lock();
        lock.unlock();
      }
      for (int i = 0; i < masters.size(); i++) {
        assertThat(ClusterNames.commandStats(masters.get(i), "evalsha")[0] - evalsha[i])
            .as("EVALSHA on master %d for a lock on shard %d", i, shard)
            .isEqualTo(i == shard ? 2L * pairs : 0L);
        assertThat(ClusterNames.commandStats(masters.get(i), "spublish")[0] - spublish[i])
            .as("SPUBLISH on master %d", i)
            .isZero();
      }
    }
  }

  @Test
  void readersShareAndNeverMeetAWriterOnEveryShard() throws Exception {
    List<String> names = ClusterNames.onEveryShard(cluster, "rw");
    List<CriticalSection> writers = new ArrayList<>();
    names.forEach(name -> writers.add(new CriticalSection()));
    int contenders = CLIENTS * 2 * names.size();
    StartGate.run(
        contenders,
        ROUNDS,
        contender -> {
          int shard = (contender / CLIENTS) % names.size();
          var rw = client(contender).readWriteLock(names.get(shard));
          if (contender % 4 < 2) {
            rw.writeLock().lock();
            try {
              writers.get(shard).enter();
            } finally {
              rw.writeLock().unlock();
            }
          } else {
            rw.readLock().lock();
            try {
              assertThat(writers.get(shard).inside()).as("writers inside").isZero();
            } finally {
              rw.readLock().unlock();
            }
          }
        });
    for (CriticalSection section : writers) {
      section.assertMutualExclusion(contenders / names.size() / 2 * ROUNDS);
    }
  }

  @Test
  void aMultiLockAcrossThreeSlotsOnThreeShardsExcludesAndHoldsEveryPart() throws Exception {
    List<String> names = ClusterNames.onEveryShard(cluster, "multi");
    CriticalSection section = new CriticalSection();
    StartGate.run(
        CLIENTS * 3,
        ROUNDS,
        contender -> {
          Warden warden = client(contender);
          DistributedLock[] parts =
              names.stream().map(warden::lock).toArray(DistributedLock[]::new);
          DistributedLock all = warden.multiLock(parts);
          all.lock();
          try {
            for (DistributedLock part : parts) {
              assertThat(part.isHeldByCurrentThread()).as(part.getName()).isTrue();
            }
            section.enter();
          } finally {
            all.unlock();
          }
        });
    section.assertMutualExclusion(CLIENTS * 3 * ROUNDS);
    for (String name : names) {
      assertThat(first.lock(name).isLocked()).as(name).isFalse();
    }
  }

  @Test
  void conditionsOnEveryShardAreSignalledAcrossClients() throws Exception {
    List<String> names = ClusterNames.onEveryShard(cluster, "condition");
    List<CompletableFuture<Boolean>> signalled = new ArrayList<>();
    for (String name : names) {
      DistributedLock lock = second.lock(name);
      signalled.add(
          CompletableFuture.supplyAsync(
              () -> {
                lock.lock();
                try {
                  return lock.newCondition("ready").await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return false;
                } finally {
                  lock.unlock();
                }
              },
              threads));
    }
    for (int i = 0; i < names.size(); i++) {
      CompletableFuture<Boolean> done = signalled.get(i);
      Waiters.signalUntilWoken(first.lock(names.get(i)), "ready", done);
      assertThat(done.get(10, TimeUnit.SECONDS)).as(names.get(i)).isTrue();
    }
  }

  @Test
  void inspectCountsTheWaitingClientOnTheShardsOwnNode() throws Exception {
    for (String name : ClusterNames.onEveryShard(cluster, "inspect")) {
      DistributedLock held = first.lock(name);
      held.lock();
      try {
        DistributedLock wanted = second.lock(name);
        CompletableFuture<Boolean> waiter =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    boolean got = wanted.tryLock(30, TimeUnit.SECONDS);
                    if (got) {
                      wanted.unlock();
                    }
                    return got;
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                  }
                },
                threads);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> first.inspect(name).waitingClients() == 1);
        held.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
      } finally {
        if (held.isHeldByCurrentThread()) {
          held.unlock();
        }
      }
    }
  }

  @Test
  void clusterSeedsThatAreNotValidOrNotReachableAreReportedByName() {
    assertThatThrownBy(() -> Warden.builder().cluster("redis://127.0.0.1:1", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seedUris[1]");
    assertThatThrownBy(() -> Warden.builder().cluster("redis://:%zz@127.0.0.1:1").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seedUris[0]");
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .cluster("redis://:secret@127.0.0.1:1", "redis://127.0.0.1:2")
                    .commandTimeout(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("127.0.0.1:2")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> Warden.builder().uri("redis://x").cluster("redis://y").build())
        .isInstanceOf(IllegalStateException.class);
  }
}
