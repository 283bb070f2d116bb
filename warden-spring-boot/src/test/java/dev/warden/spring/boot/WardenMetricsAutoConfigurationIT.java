package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.micrometer.WardenMetrics;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Warden's meters, bound by Spring Boot's metrics auto-configuration. */
@ExtendWith(WardenExtension.class)
class WardenMetricsAutoConfigurationIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  SimpleMetricsExportAutoConfiguration.class,
                  WardenAutoConfiguration.class));

  private static void lockAndUnlock(Warden warden, String name) {
    DistributedLock lock = warden.lock(name);
    lock.lock();
    lock.unlock();
  }

  @Test
  void acquisitionsAreMeasuredInBootsRegistryWithTheConfiguredNameTags(RedisServer redis) {
    runner
        .withPropertyValues("warden.uri=" + redis.uri(), "warden.metrics.lock-names=report")
        .run(
            context -> {
              assertThat(context).hasSingleBean(WardenMetrics.class);
              Warden warden = context.getBean(Warden.class);
              lockAndUnlock(warden, "report");
              lockAndUnlock(warden, "invoice-1");
              lockAndUnlock(warden, "invoice-2");

              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get("warden.acquire")
                          .tags("type", "lock", "outcome", "acquired", "name", "report")
                          .timer()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("warden.acquire")
                          .tags("type", "lock", "outcome", "acquired", "name", "other")
                          .timer()
                          .count())
                  .isEqualTo(2);
            });
  }

  @Test
  void theMetricsBackOffWhenDisabledOrWithoutWardenMicrometer(RedisServer redis) {
    runner
        .withPropertyValues("warden.uri=" + redis.uri(), "warden.metrics.enabled=false")
        .run(
            context -> {
              assertThat(context).hasSingleBean(Warden.class);
              assertThat(context).doesNotHaveBean(WardenMetrics.class);
            });
    runner
        .withPropertyValues("warden.uri=" + redis.uri())
        .withClassLoader(new FilteredClassLoader(WardenMetrics.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(Warden.class);
              assertThat(context).doesNotHaveBean("wardenMetrics");
            });
  }
}
