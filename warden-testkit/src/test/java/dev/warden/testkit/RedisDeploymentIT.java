package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import org.junit.jupiter.api.Test;

/** The deployment chooser: what a tool gets for each kind, and what it refuses. */
class RedisDeploymentIT {
  @Test
  void aSingleServerServesAWardenConfiguredByItAndStopsOnClose() {
    RedisServer server;
    try (RedisDeployment redis = RedisDeployment.start(WardenDeployment.Kind.SINGLE);
        Warden warden = redis.configure(Warden.builder()).build()) {
      server = redis.server();
      assertThat(redis.kind()).isEqualTo(WardenDeployment.Kind.SINGLE);
      assertThat(redis.uris()).containsExactly(server.uri());
      assertThat(redis.masters()).containsExactly(server);
      DistributedLock lock = warden.lock("chosen");
      lock.lock();
      assertThat(server.redis().exists("warden:{chosen}:lock")).isEqualTo(1L);
      lock.unlock();
      server.redis().set("left-over", "1");
      redis.flushAll();
      assertThat(server.redis().dbsize()).isZero();
      assertThatThrownBy(redis::cluster)
          .isExactlyInstanceOf(IllegalStateException.class)
          .hasMessageContaining("a SINGLE deployment has no RedisCluster");
      assertThatThrownBy(redis::sentinels)
          .isExactlyInstanceOf(IllegalStateException.class)
          .hasMessageContaining("a SINGLE deployment has no RedisSentinels");
    }
    assertThat(server.isRunning()).isFalse();
  }

  @Test
  void theAclKindConnectsAsTheUserWithTheRule() {
    try (RedisDeployment redis = RedisDeployment.start(WardenDeployment.Kind.SINGLE_ACL);
        Warden warden = redis.configure(Warden.builder()).build()) {
      assertThat(redis.uris()).containsExactly(WardenAcl.uriOf(redis.server()));
      warden.lock("as-the-user").lock();
      assertThat(redis.server().redis().clientList()).contains("user=" + WardenAcl.USER + " ");
    }
  }

  @Test
  void onlyTheKindsThatHaveProxiesStartBehindThem() {
    assertThatThrownBy(() -> RedisDeployment.startBehindProxies(WardenDeployment.Kind.SINGLE_ACL))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("kind must be SINGLE, CLUSTER or SENTINEL behind proxies: SINGLE_ACL");
    assertThatThrownBy(() -> RedisDeployment.startBehindProxies(null))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(": null");
    assertThatThrownBy(() -> RedisDeployment.start(null))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("kind must not be null");
  }
}
