package dev.warden.internal.redis.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

class ShardedPubSubTest {
  @Test
  void aMovedOrAskReplyNamesTheNodeToSubscribeOn() {
    assertThat(
            ShardedPubSub.redirection(
                new RedisCommandExecutionException("MOVED 3999 127.0.0.1:6381")))
        .isEqualTo("127.0.0.1:6381");
    assertThat(
            ShardedPubSub.redirection(new RedisCommandExecutionException("ASK 12 10.0.0.2:7000")))
        .isEqualTo("10.0.0.2:7000");
  }

  @Test
  void anyOtherFailureNamesNoNode() {
    assertThat(
            ShardedPubSub.redirection(
                new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))
        .isNull();
    assertThat(ShardedPubSub.redirection(new RedisCommandExecutionException("MOVED 3999")))
        .isNull();
    assertThat(ShardedPubSub.redirection(new RedisConnectionException("MOVED 1 h:1"))).isNull();
    assertThat(ShardedPubSub.redirection(new RedisCommandExecutionException((String) null)))
        .isNull();
  }
}
