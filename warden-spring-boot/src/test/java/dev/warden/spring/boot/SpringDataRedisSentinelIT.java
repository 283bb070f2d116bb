package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** spring.data.redis.sentinel.* reused against a real Sentinel set. */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SpringDataRedisSentinelIT {
  @Test
  void theWardenFindsTheMasterThroughSpringDataRedisSentinels(RedisSentinels sentinels) {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.sentinel.master=" + sentinels.masterName(),
            "spring.data.redis.sentinel.nodes="
                + sentinels.sentinelPorts().stream()
                    .map(port -> "127.0.0.1:" + port)
                    .collect(Collectors.joining(",")))
        .run(
            context -> {
              assertThat(context.getBean(WardenConnection.class).uris())
                  .containsExactly(sentinels.uri());
              DistributedLock lock = context.getBean(Warden.class).lock("via-sentinel");
              lock.lock();
              try {
                assertThat(sentinels.master().redis().exists("warden:{via-sentinel}:lock"))
                    .isEqualTo(1);
                Health health = context.getBean(WardenHealthIndicator.class).health();
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("mode", "sentinel");
              } finally {
                lock.unlock();
              }
            });
  }
}
