package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.WakeUps;
import dev.warden.Warden;
import dev.warden.spring.WardenLockedAdvisor;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;

/**
 * What the auto-configuration declares and where it points the Warden, with every bean lazy so that
 * no Redis is needed: the Warden connects only when a test asks for it (see
 * WardenAutoConfigurationIT for that).
 */
class WardenAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withInitializer(
              context ->
                  context.addBeanFactoryPostProcessor(
                      new LazyInitializationBeanFactoryPostProcessor()))
          .withConfiguration(
              AutoConfigurations.of(
                  DataRedisAutoConfiguration.class, WardenAutoConfiguration.class));

  @Test
  void wardenPropertiesBindWithBootStyleDurations() {
    runner
        .withPropertyValues(
            "warden.uri=redis://h:1",
            "warden.watchdog-timeout=12s",
            "warden.command-timeout=750ms",
            "warden.recheck-interval=PT0.05S",
            "warden.annotation.order=7")
        .run(
            context -> {
              WardenProperties properties = context.getBean(WardenProperties.class);
              assertThat(properties.getWatchdogTimeout()).isEqualTo(Duration.ofSeconds(12));
              assertThat(properties.getCommandTimeout()).isEqualTo(Duration.ofMillis(750));
              assertThat(properties.getRecheckInterval()).isEqualTo(Duration.ofMillis(50));
              assertThat(context.getBean(WardenLockedAdvisor.class).getOrder()).isEqualTo(7);
              assertThat(context.getBean(WardenConnection.class))
                  .isEqualTo(WardenConnection.uri("redis://h:1"));
            });
  }

  @Test
  void wakeUpsBindsEachModeInBootStyle() {
    for (String value : List.of("auto", "from-scripts", "from-client", "FROM_CLIENT")) {
      runner
          .withPropertyValues("warden.uri=redis://h:1", "warden.wake-ups=" + value)
          .run(
              context ->
                  assertThat(context.getBean(WardenProperties.class).getWakeUps())
                      .as(value)
                      .isEqualTo(
                          WakeUps.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'))));
    }
  }

  @Test
  void springDataRedisStandaloneSettingsAreReused() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=cache.internal",
            "spring.data.redis.port=6390",
            "spring.data.redis.database=4",
            "spring.data.redis.username=app",
            "spring.data.redis.password=s3cret",
            "spring.data.redis.ssl.enabled=true")
        .run(
            context ->
                assertThat(context.getBean(WardenConnection.class).uris())
                    .containsExactly("rediss://app:s3cret@cache.internal:6390/4"));
  }

  @Test
  void aSpringDataRedisUrlIsReusedWithItsScheme() {
    runner
        .withPropertyValues("spring.data.redis.url=rediss://:pw@cache.internal:6391")
        .run(
            context ->
                assertThat(context.getBean(WardenConnection.class).uris())
                    .containsExactly("rediss://:pw@cache.internal:6391"));
  }

  @Test
  void springDataRedisSentinelSettingsBecomeASentinelUri() {
    runner
        .withPropertyValues(
            "spring.data.redis.sentinel.master=orders",
            "spring.data.redis.sentinel.nodes=s1:26379,s2:26379",
            "spring.data.redis.password=pw")
        .run(
            context -> {
              WardenConnection connection = context.getBean(WardenConnection.class);
              assertThat(connection.mode()).isEqualTo(WardenConnection.Mode.SENTINEL);
              assertThat(connection.uris())
                  .containsExactly("redis-sentinel://:pw@s1:26379,s2:26379#orders");
            });
  }

  @Test
  void springDataRedisClusterNodesBecomeClusterSeeds() {
    runner
        .withPropertyValues("spring.data.redis.cluster.nodes=n1:7000,n2:7001")
        .run(
            context -> {
              WardenConnection connection = context.getBean(WardenConnection.class);
              assertThat(connection.mode()).isEqualTo(WardenConnection.Mode.CLUSTER);
              assertThat(connection.uris()).containsExactly("redis://n1:7000", "redis://n2:7001");
            });
  }

  @Test
  void wardenUriWinsOverSpringDataRedis() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=cache.internal", "warden.uri=redis-sentinel://s:1#m")
        .run(
            context ->
                assertThat(context.getBean(WardenConnection.class))
                    .isEqualTo(WardenConnection.uri("redis-sentinel://s:1#m")));
  }

  @Test
  void withoutSpringDataRedisOnTheClassPathTheDefaultIsLocalhost() {
    new ApplicationContextRunner()
        .withInitializer(
            context ->
                context.addBeanFactoryPostProcessor(
                    new LazyInitializationBeanFactoryPostProcessor()))
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
        .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WardenConnection.class).uris())
                  .containsExactly("redis://localhost:6379");
            });
  }

  @Test
  void wardenEnabledFalseConfiguresNothing() {
    runner
        .withPropertyValues("warden.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(Warden.class);
              assertThat(context).doesNotHaveBean(WardenConnection.class);
              assertThat(context).doesNotHaveBean(WardenLockedAdvisor.class);
              assertThat(context).doesNotHaveBean(WardenHealthIndicator.class);
            });
  }

  @Test
  void theAnnotationSupportCanBeSwitchedOff() {
    runner
        .withPropertyValues("warden.annotation.enabled=false")
        .run(
            context -> {
              assertThat(context).hasSingleBean(Warden.class);
              assertThat(context).doesNotHaveBean(WardenLockedAdvisor.class);
            });
  }

  @Test
  void theHealthIndicatorNeedsSpringBootHealthAndCanBeDisabled() {
    runner.run(
        context -> assertThat(context.containsBeanDefinition("wardenHealthIndicator")).isTrue());
    runner
        .withPropertyValues("management.health.warden.enabled=false")
        .run(
            context ->
                assertThat(context.containsBeanDefinition("wardenHealthIndicator")).isFalse());
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.containsBeanDefinition("wardenHealthIndicator")).isFalse();
            });
  }

  @Test
  void theEndpointExistsOnlyWhenExposed() {
    runner.run(context -> assertThat(context.containsBeanDefinition("wardenEndpoint")).isFalse());
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=warden")
        .run(context -> assertThat(context.containsBeanDefinition("wardenEndpoint")).isTrue());
  }

  @Test
  void configurationMetadataDescribesTheWardenProperties() throws Exception {
    String metadata =
        new String(
            new ClassPathResource("META-INF/spring-configuration-metadata.json")
                .getInputStream()
                .readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8);

    assertThat(metadata)
        .contains("\"name\": \"warden.uri\"")
        .contains("\"name\": \"warden.cluster.nodes\"")
        .contains("\"name\": \"warden.watchdog-timeout\"")
        .contains("\"defaultValue\": \"30s\"")
        .contains("How long one Redis call may take")
        .contains("\"name\": \"warden.wake-ups\"")
        .contains("Who publishes the wake-ups of releases");
  }

  @Test
  void thePropertiesDefaultToWardensOwnDefaults() {
    WardenProperties properties = new WardenProperties();

    assertThat(properties.getWatchdogTimeout()).isEqualTo(Warden.DEFAULT_WATCHDOG_TIMEOUT);
    assertThat(properties.getCommandTimeout()).isEqualTo(Warden.DEFAULT_COMMAND_TIMEOUT);
    assertThat(properties.getRecheckInterval()).isEqualTo(Warden.DEFAULT_RECHECK_INTERVAL);
    assertThat(properties.getWakeUps()).isEqualTo(WakeUps.AUTO);
  }
}
