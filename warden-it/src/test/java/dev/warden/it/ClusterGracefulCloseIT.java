package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Warden#close(Duration)} on a 3+3 Redis Cluster: holds of every lock type on every shard
 * are released on each shard's master once the grace runs out, so another instance takes them all
 * at once, and every holder is told.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class ClusterGracefulCloseIT {
  @Test
  void holdsOnEveryShardAreHandedOverByTheClose(RedisCluster cluster, WardenFactory wardens)
      throws Exception {
    Warden closing = wardens.create(builder -> builder.watchdogTimeout(Duration.ofSeconds(30)));
    Warden other = wardens.create();
    List<BiFunction<Warden, String, DistributedLock>> types =
        List.of(
            Warden::lock,
            Warden::fairLock,
            (warden, name) -> warden.readWriteLock(name).writeLock(),
            (warden, name) -> warden.readWriteLock(name).readLock());
    List<LockHandle> held = new ArrayList<>();
    List<String> names = ClusterNames.onEveryShard(cluster, "handed-over");
    for (int type = 0; type < types.size(); type++) {
      for (String name : names) {
        held.add(types.get(type).apply(closing, type + "-" + name).acquire(Duration.ZERO));
      }
    }

    closing.close(Duration.ofMillis(200));

    for (int type = 0; type < types.size(); type++) {
      for (String name : names) {
        DistributedLock lock = types.get(type).apply(other, type + "-" + name);
        // the write side of a read-write lock is free only when its read side is too
        DistributedLock exclusive =
            type < 2 ? lock : other.readWriteLock(type + "-" + name).writeLock();
        assertThat(exclusive.tryLock()).as("%s of %s", type, name).isTrue();
        exclusive.unlock();
      }
    }
    for (LockHandle handle : held) {
      handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS); // told
    }
  }
}
