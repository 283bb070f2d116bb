package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
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

/** spring.data.redis.cluster.nodes reused against a real 3+3 Redis Cluster. */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.CLUSTER)
class SpringDataRedisClusterIT {
  @Test
  void theWardenJoinsTheClusterOfSpringDataRedisAndLocksOnTheSlotsMaster(RedisCluster cluster) {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.cluster.nodes="
                + cluster.seeds().stream()
                    .map(seed -> seed.substring("redis://".length()))
                    .collect(Collectors.joining(",")))
        .run(
            context -> {
              assertThat(context.getBean(WardenConnection.class).uris())
                  .containsExactlyElementsOf(cluster.seeds());
              String key = "warden:{via-cluster}:lock";
              DistributedLock lock = context.getBean(Warden.class).lock("via-cluster");
              lock.lock();
              try {
                assertThat(cluster.masterOf(key).redis().exists(key)).isEqualTo(1);
                Health health = context.getBean(WardenHealthIndicator.class).health();
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("mode", "cluster");
              } finally {
                lock.unlock();
              }
            });
  }
}
