package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.SystemTimer;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClientSetupTest {
  private static final Settings SETTINGS =
      new Settings(Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMillis(200));

  /**
   * Lettuce runs the handshake of a URI whose credentials provider is not immediate from a thread
   * of its own, where a refused login races the channel's close and is reported about once in 100
   * connects as "Connection closed prematurely" (CredentialsIT counts the reasons of many refused
   * logins): every URI Warden connects with hands its credentials over at once.
   */
  @Test
  void aUrisOwnCredentialsAreHandedToLettuceAtOnce() {
    SystemTimer timer = new SystemTimer();
    try {
      ClientSetup setup = new ClientSetup(SETTINGS, Clock.SYSTEM, timer, "test", null);
      RedisURI single = setup.uri("redisUri", "redis://app:s3cret@127.0.0.1:6379", "Redis URI");
      RedisURI sentinel =
          setup.uri(
              "redisUri",
              "redis-sentinel://:s3cret@127.0.0.1:26379,127.0.0.1:26380/0#primary",
              "Redis Sentinel URI");

      RedisCredentials singles = immediate(single).resolveCredentialsNow();
      assertThat(singles.getUsername()).isEqualTo("app");
      assertThat(singles.getPassword()).containsExactly("s3cret".toCharArray());
      assertThat(immediate(sentinel).resolveCredentialsNow().getPassword())
          .containsExactly("s3cret".toCharArray());
      for (RedisURI node : sentinel.getSentinels()) {
        immediate(node);
      }
    } finally {
      timer.shutdown();
    }
  }

  @Test
  void aUriWithoutCredentialsStaysWithout() {
    RedisURI uri = RedisURI.create("redis://127.0.0.1:6379");
    ClientSetup.withImmediateCredentials(uri);
    RedisCredentials none = immediate(uri).resolveCredentialsNow();
    assertThat(none.hasUsername()).isFalse();
    assertThat(none.hasPassword()).isFalse();
  }

  private static RedisCredentialsProvider.ImmediateRedisCredentialsProvider immediate(
      RedisURI uri) {
    assertThat(uri.getCredentialsProvider())
        .isInstanceOf(RedisCredentialsProvider.ImmediateRedisCredentialsProvider.class);
    return (RedisCredentialsProvider.ImmediateRedisCredentialsProvider)
        uri.getCredentialsProvider();
  }
}
