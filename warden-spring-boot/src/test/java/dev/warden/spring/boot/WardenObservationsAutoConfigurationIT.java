package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import dev.warden.micrometer.WardenObservations;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Warden's observations, started by the auto-configuration when there is a registry bean. */
@ExtendWith(WardenExtension.class)
class WardenObservationsAutoConfigurationIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class));

  @Test
  void anObservationRegistryBeanGetsAWaitAndAHoldPerAcquisition(RedisServer redis) {
    TestObservationRegistry registry = TestObservationRegistry.create();
    runner
        .withBean(TestObservationRegistry.class, () -> registry)
        .withPropertyValues(
            "warden.uri=" + redis.uri(),
            "warden.observations.lock-names=report",
            "warden.observations.fencing-tokens=true")
        .run(
            context -> {
              assertThat(context).hasSingleBean(WardenObservations.class);
              context.getBean(Warden.class).lock("report").acquire(Duration.ofSeconds(5)).close();

              TestObservationRegistryAssert.assertThat(registry)
                  .hasObservationWithNameEqualTo("warden.lock.acquire")
                  .that()
                  .hasHighCardinalityKeyValue("warden.name", "report")
                  .hasLowCardinalityKeyValue("warden.outcome", "acquired");
              TestObservationRegistryAssert.assertThat(registry)
                  .hasObservationWithNameEqualTo("warden.lock.hold")
                  .that()
                  .hasHighCardinalityKeyValueWithKey("warden.token");
            });
  }

  @Test
  void withoutARegistryOrWhenDisabledThereAreNoObservations(RedisServer redis) {
    runner
        .withPropertyValues("warden.uri=" + redis.uri())
        .run(context -> assertThat(context).doesNotHaveBean(WardenObservations.class));
    runner
        .withBean(TestObservationRegistry.class, TestObservationRegistry::create)
        .withPropertyValues("warden.uri=" + redis.uri(), "warden.observations.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(WardenObservations.class));
  }
}
