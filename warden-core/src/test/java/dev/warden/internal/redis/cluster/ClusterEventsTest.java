package dev.warden.internal.redis.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * With the application's client resources, the event bus carries the topology events of its own
 * cluster clients too: only this cluster's count.
 */
class ClusterEventsTest {
  private static RedisClusterNode node(String id) {
    RedisClusterNode node = new RedisClusterNode();
    node.setNodeId(id);
    return node;
  }

  @Test
  void anEventOfAnotherClusterIsIgnoredAndOneOfThisClusterLearnsItsNewNodes() {
    Set<String> ours = ConcurrentHashMap.newKeySet();
    ours.addAll(List.of("a1", "a2"));
    ClusterTopologyChangedEvent foreign =
        new ClusterTopologyChangedEvent(List.of(node("b1")), List.of(node("b1"), node("b2")));
    assertThat(ClusterDeployment.ofCluster(ours, foreign)).isFalse();
    assertThat(ours).containsExactlyInAnyOrder("a1", "a2");

    ClusterTopologyChangedEvent grown =
        new ClusterTopologyChangedEvent(
            List.of(node("a1"), node("a2")), List.of(node("a1"), node("a2"), node("a3")));
    assertThat(ClusterDeployment.ofCluster(ours, grown)).isTrue();
    assertThat(ours).contains("a3");
    ClusterTopologyChangedEvent replaced =
        new ClusterTopologyChangedEvent(List.of(node("a3")), List.of(node("a4")));
    assertThat(ClusterDeployment.ofCluster(ours, replaced)).as("known before").isTrue();
  }
}
