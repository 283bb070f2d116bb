package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
  /** A context whose spring.data.redis.cluster.nodes are the cluster's seeds. */
  private static ApplicationContextRunner onCluster(RedisCluster cluster) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, WardenAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.cluster.nodes="
                + cluster.seeds().stream()
                    .map(seed -> seed.substring("redis://".length()))
                    .collect(Collectors.joining(",")));
  }

  @Test
  void theWardenJoinsTheClusterOfSpringDataRedisAndLocksOnTheSlotsMaster(RedisCluster cluster) {
    onCluster(cluster)
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

  @Test
  void onBootsLettuceAHoldLostInAFailoverIsReportedWithinSecondsNotAtTheNextRenewal(
      RedisCluster cluster) {
    // Lettuce 7.5 (Boot 4.1's) announces a topology change before it reloads its own view: the
    // Warden must read the new slot owner from the announcement (a 30 s lease renews every 10 s)
    onCluster(cluster)
        .run(
            context -> {
              Warden warden = context.getBean(Warden.class);
              String key = "warden:{lost-in-failover}:lock";
              RedisServer master = cluster.masterOf(key);
              List<LockHandle> held = new ArrayList<>();
              cluster.loseWrites(
                  master,
                  () -> {
                    try {
                      held.add(warden.lock("lost-in-failover").acquire(Duration.ofSeconds(5)));
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      throw new IllegalStateException(e);
                    }
                  });
              long switched = System.nanoTime();
              long lostAt =
                  held.get(0)
                      .leaseLost()
                      .toCompletableFuture()
                      .thenApply(ignored -> System.nanoTime())
                      .get(20, TimeUnit.SECONDS);
              assertThat(Duration.ofNanos(lostAt - switched)).isLessThan(Duration.ofSeconds(5));
            });
  }
}
