package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fencing tokens never repeat, on the two events that brought old counters back before: a restart
 * from an older RDB file, and a failover to a replica that missed the last tokens (design note
 * scale-out.md §6). Tokens must rise above every token issued before, the lost ones included.
 */
class FencingIT {
  private static final String LOCK = "warden:{f}:lock";
  private static final String FENCE = "warden:{f}:lock:fence";

  @Test
  void tokensKeepRisingAcrossARestartFromAnOlderRdbFile() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      List<Long> issued = new ArrayList<>();
      try (Warden warden = Warden.builder().uri(redis.uri()).build()) {
        DistributedLock lock = warden.lock("f");
        issued.add(tokenOfOneHold(lock));
        redis.redis().save(); // the snapshot the restart comes back with
        for (int i = 0; i < 50; i++) {
          issued.add(tokenOfOneHold(lock));
        }
      }
      redis.kill();
      redis.restart();
      assertThat(redis.redis().hget(FENCE, "c")).as("the older fence came back").isNotNull();
      try (Warden warden = Warden.builder().uri(redis.uri()).build()) {
        long next = tokenOfOneHold(warden.lock("f"));
        assertThat(next)
            .isGreaterThan(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
      }
      assertThat(issued).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void aHoldBroughtBackByARestartFromAnOlderFileGivesItsOwnersNextLockANewToken() throws Exception {
    // found by `warden chaos`: the thread's next lock() re-entered the revived hold and got its old
    // token, below one issued since (which the rewind lost), so a fencing resource refused it
    try (RedisServer redis = RedisServer.start();
        Warden mine = Warden.builder().uri(redis.uri()).build();
        Warden other = Warden.builder().uri(redis.uri()).build()) {
      DistributedLock lock = mine.lock("f");
      lock.lock(2, TimeUnit.SECONDS);
      long first = lock.fencingToken();
      redis.redis().save(); // the snapshot has this thread's hold
      lock.unlock();
      long second = tokenOfOneHold(other.lock("f"));
      redis.restart(); // back with the hold and the fence of before
      assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(first));

      lock.lock(2, TimeUnit.SECONDS);
      try {
        assertThat(lock.fencingToken()).isGreaterThan(second);
        assertThat(redis.redis().hget(LOCK, "#t")).isEqualTo(Long.toString(lock.fencingToken()));
        assertThat(lock.getHoldCount()).as("the revived hold became this one").isEqualTo(1);
      } finally {
        lock.unlock();
      }
      assertThat(redis.redis().exists(LOCK)).as("the unlock ended it").isZero();
      assertThat(other.lock("f").tryLock()).isTrue();
      assertThat(other.lock("f").fencingToken()).isGreaterThan(second);
      other.lock("f").unlock();
    }
  }

  @Test
  void onAClusterTheFirstTokenAfterLosingWritesRanksAboveTheLostOnesByTheConfigEpoch() {
    try (RedisCluster cluster = RedisCluster.start()) {
      RedisServer master = cluster.masterOf(LOCK);
      List<Long> issued = new ArrayList<>();
      issued.add(mint(master.redis(), "a"));
      long oldEpoch = Long.parseLong(master.redis().hget(FENCE, "e"));
      assertThat(master.redis().hget(FENCE, "n")).isEqualTo(cluster.idOf(master));
      // forged far ahead of any clock, then lost: the new master's clock cannot be what wins
      master
          .redis()
          .hset(
              FENCE,
              "c",
              Long.toString(Long.parseLong(master.redis().hget(FENCE, "c")) + 3_000_000_000L));
      RedisServer promoted =
          cluster.loseWrites(
              master,
              () -> {
                for (int i = 0; i < 3; i++) {
                  issued.add(mint(master.redis(), "lost-" + i));
                }
              });
      long next = mint(promoted.redis(), "b");
      assertThat(next)
          .isGreaterThan(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
      long newEpoch = Long.parseLong(promoted.redis().hget(FENCE, "e"));
      assertThat(newEpoch).isGreaterThan(oldEpoch);
      assertThat(promoted.redis().hget(FENCE, "n")).isEqualTo(cluster.idOf(promoted));
      assertThat(mint(promoted.redis(), "c")).isGreaterThan(next);
    }
  }

  private static long tokenOfOneHold(DistributedLock lock) throws InterruptedException {
    try (LockHandle hold = lock.acquire(Duration.ofSeconds(10))) {
      return hold.fencingToken();
    }
  }

  /** Takes the lock for {@code owner} with the cluster's fence terms and frees it again. */
  private static long mint(RedisCommands<String, String> node, String owner) {
    List<Object> reply =
        LuaScripts.run(
            node,
            "lock-acquire",
            new String[] {LOCK, FENCE},
            owner,
            "10000",
            "0",
            "0",
            "3600000:cluster",
            "acq-" + owner,
            "c:",
            "0");
    assertThat(reply.get(0)).isEqualTo(1L);
    node.del(LOCK);
    return Long.parseLong(String.valueOf(reply.get(1)));
  }
}
