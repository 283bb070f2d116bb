package dev.warden.internal.redis.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.VirtualTime;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EpochWatchTest {
  private static String info(long epoch) {
    return "cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_current_epoch:"
        + epoch
        + "\r\ncluster_my_epoch:2\r\n";
  }

  @Test
  void readsTheCurrentEpochOfAClusterInfoReply() {
    assertThat(EpochWatch.currentEpoch(info(17))).isEqualTo(17);
    assertThat(EpochWatch.currentEpoch("cluster_state:ok\r\n")).isEqualTo(-1);
    assertThat(EpochWatch.currentEpoch("cluster_current_epoch:\r\n")).isEqualTo(-1);
  }

  @Test
  void refreshesWhileTheTopologyLagsBehindTheCurrentEpochAtMostAttemptsTimesPerEpoch() {
    VirtualTime time = new VirtualTime();
    AtomicLong topology = new AtomicLong(6);
    AtomicInteger refreshes = new AtomicInteger();
    try (EpochWatch watch =
        new EpochWatch(null, topology::get, time, 1_000_000_000L, refreshes::incrementAndGet)) {
      watch.seen(info(6));
      watch.seen(info(5)); // a node the gossip has not reached yet
      assertThat(refreshes).as("nothing the client's topology lacks").hasValue(0);
      watch.seen(info(7));
      assertThat(refreshes).as("a failover since the topology was read").hasValue(1);
      watch.seen(info(7));
      assertThat(refreshes).as("the refresh read a node that had not heard of it").hasValue(2);
      topology.set(7);
      watch.seen(info(7));
      watch.seen(info(6));
      assertThat(refreshes).as("the topology shows it").hasValue(2);
      for (int i = 0; i < EpochWatch.ATTEMPTS + 3; i++) {
        watch.seen(info(9)); // an election that failed: no config epoch 9
      }
      assertThat(refreshes).hasValue(2 + EpochWatch.ATTEMPTS);
      watch.seen(info(8));
      assertThat(refreshes)
          .as("an epoch below one tried already")
          .hasValue(2 + EpochWatch.ATTEMPTS);
      watch.seen(info(10));
      assertThat(refreshes).as("a new change").hasValue(3 + EpochWatch.ATTEMPTS);
      watch.seen("cluster_state:fail\r\n");
      assertThat(refreshes).hasValue(3 + EpochWatch.ATTEMPTS);
    }
  }
}
