package dev.warden.internal.redis.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.VirtualTime;
import java.util.concurrent.atomic.AtomicInteger;
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
  void onlyAnEpochAboveEveryOneSeenBeforeAsksForARefresh() {
    VirtualTime time = new VirtualTime();
    AtomicInteger refreshes = new AtomicInteger();
    try (EpochWatch watch =
        new EpochWatch(null, 6, time, 1_000_000_000L, refreshes::incrementAndGet)) {
      watch.seen(info(6));
      assertThat(refreshes).as("the epoch of the topology the client has").hasValue(0);
      watch.seen(info(6));
      watch.seen(info(5)); // a node the gossip has not reached yet
      assertThat(refreshes).hasValue(0);
      watch.seen(info(7));
      assertThat(refreshes).as("a failover since the topology was read").hasValue(1);
      watch.seen(info(6));
      watch.seen(info(7));
      assertThat(refreshes).as("seen already").hasValue(1);
      watch.seen("cluster_state:fail\r\n");
      assertThat(refreshes).hasValue(1);
    }
  }
}
