package dev.warden.spring.boot;

import dev.warden.Warden;
import dev.warden.micrometer.WardenMetrics;
import dev.warden.micrometer.WardenObservations;
import dev.warden.spring.WardenLockedAdvisor;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Auto-configures a {@link Warden} bean (unless the application declares one), the {@link
 * dev.warden.spring.WardenLocked} advisor, and, with Actuator, the {@code warden} health indicator
 * and endpoint, and Warden's meters when warden-micrometer is present.
 *
 * <p>Where it connects ({@link WardenConnection}): {@code warden.uri} or {@code
 * warden.cluster.nodes} when set; otherwise the application's {@code spring.data.redis.*}
 * connection (Boot's {@code DataRedisConnectionDetails}: standalone, Sentinel or Cluster, with user
 * name, password, database and TLS, its SSL bundle included) when spring-boot-data-redis is
 * present; otherwise {@code redis://localhost:6379}. {@code warden.ssl.bundle} names an SSL bundle
 * for any of them. The Warden runs on the application's Lettuce {@code ClientResources} bean when
 * there is exactly one ({@code warden.share-client-resources}), and the bean named {@code warden}
 * closes gracefully when the context stops ({@code warden.shutdown.grace}, {@link
 * WardenShutdown#PHASE}: after the web server's graceful shutdown). Off with {@code
 * warden.enabled=false}.
 *
 * @since 0.2
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@ConditionalOnClass(Warden.class)
@ConditionalOnBooleanProperty(name = "warden.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WardenProperties.class)
public final class WardenAutoConfiguration {
  /** The address used when nothing else is configured, as Spring Data Redis's default. */
  static final String DEFAULT_URI = "redis://localhost:6379";

  /** Creates the configuration; Spring Boot calls it. */
  public WardenAutoConfiguration() {}

  /**
   * Returns where the Warden connects when neither the application nor spring-boot-data-redis says:
   * {@code warden.uri}, {@code warden.cluster.nodes}, or {@value #DEFAULT_URI}.
   *
   * @param properties the {@code warden.*} properties
   * @return the connection
   */
  @Bean
  @ConditionalOnMissingBean
  WardenConnection wardenConnection(WardenProperties properties) {
    WardenConnection configured = WardenConnection.of(properties);
    return configured != null ? configured : WardenConnection.uri(DEFAULT_URI);
  }

  /**
   * Returns the Warden, connected with the {@code warden.*} options; closed with the context.
   *
   * @param properties the {@code warden.*} properties
   * @param connection where it connects
   * @return the connected Warden
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  Warden warden(
      WardenProperties properties,
      WardenConnection connection,
      ObjectProvider<ClientResources> clientResources,
      ObjectProvider<SslBundles> sslBundles) {
    Warden.Builder builder =
        Warden.builder()
            .watchdogTimeout(properties.getWatchdogTimeout())
            .commandTimeout(properties.getCommandTimeout())
            .recheckInterval(properties.getRecheckInterval())
            .wakeUps(properties.getWakeUps());
    connection.applyTo(builder);
    if (properties.getKeyPrefix() != null && !properties.getKeyPrefix().isEmpty()) {
      builder.keyPrefix(properties.getKeyPrefix());
    }
    if (properties.getMaxHoldTime() != null) {
      builder.maxHoldTime(properties.getMaxHoldTime());
    }
    if (properties.getSynchronizerIdleExpiry() != null) {
      builder.synchronizerIdleExpiry(properties.getSynchronizerIdleExpiry());
    }
    if (properties.isShareClientResources()) {
      clientResources.ifUnique(builder::clientResources);
    }
    String bundle = properties.getSsl().getBundle();
    if (bundle != null && !bundle.isEmpty()) {
      SslBundles bundles =
          sslBundles.getIfAvailable(
              () -> {
                throw new IllegalStateException(
                    "warden.ssl.bundle is set (" + bundle + ") but there are no SSL bundles");
              });
      builder.tls(SslBundleTls.of(bundles.getBundle(bundle)));
    }
    return builder.build();
  }

  /**
   * Returns the lifecycle that closes the Warden gracefully ({@code warden.shutdown.grace}) when
   * the context stops, after the web server's graceful shutdown; only for the Warden made here.
   *
   * @param beans where the Warden bean is, if it was created
   * @param properties the {@code warden.*} properties
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnBean(name = "warden")
  @ConditionalOnMissingBean
  static WardenShutdown wardenShutdown(
      ConfigurableListableBeanFactory beans, WardenProperties properties) {
    return new WardenShutdown(beans, "warden", properties.getShutdown().getGrace());
  }

  /**
   * Returns the advisor that locks {@link dev.warden.spring.WardenLocked} methods; an
   * infrastructure bean, created before the Warden, which it gets on the first locked call.
   *
   * @param warden the Warden, when first needed
   * @param beanFactory for placeholders and bean references in annotations
   * @param environment for {@code warden.annotation.order}
   * @return the advisor
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "warden.annotation.enabled", matchIfMissing = true)
  static WardenLockedAdvisor wardenLockedAdvisor(
      ObjectProvider<Warden> warden,
      ConfigurableListableBeanFactory beanFactory,
      Environment environment) {
    int order =
        environment.getProperty(
            "warden.annotation.order", Integer.class, WardenLockedAdvisor.DEFAULT_ORDER);
    return new WardenLockedAdvisor(warden::getObject, beanFactory, order);
  }

  /**
   * Registers Spring's infrastructure auto-proxy creator when no other is (Boot's
   * AopAutoConfiguration or {@code @EnableTransactionManagement} usually has), so that the advisor
   * applies in any context.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(name = "warden.annotation.enabled", matchIfMissing = true)
  @Import(AutoProxyRegistrar.class)
  static class AutoProxyConfiguration {}

  static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
    @Override
    public void registerBeanDefinitions(
        AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
  }

  /** Reuses {@code spring.data.redis.*} when spring-boot-data-redis is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(DataRedisConnectionDetails.class)
  static class DataRedisConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(DataRedisConnectionDetails.class)
    WardenConnection wardenConnection(
        WardenProperties properties,
        DataRedisConnectionDetails details,
        ObjectProvider<DataRedisProperties> redisProperties) {
      WardenConnection configured = WardenConnection.of(properties);
      if (configured != null) {
        return configured;
      }
      DataRedisProperties redis = redisProperties.getIfAvailable();
      boolean ssl =
          details.getSslBundle() != null
              || (redis != null
                  && (redis.getSsl().isEnabled()
                      || (redis.getUrl() != null && redis.getUrl().startsWith("rediss:"))));
      WardenConnection reused = DataRedisConnections.of(details, ssl);
      return details.getSslBundle() != null
          ? reused.withTls(SslBundleTls.of(details.getSslBundle()))
          : reused;
    }
  }

  /**
   * The {@code warden} health indicator, with spring-boot-health. (Nested classes are processed
   * before this class's own beans, so a condition on the Warden bean would not see it yet.)
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("warden")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "wardenHealthIndicator")
    WardenHealthIndicator wardenHealthIndicator(
        Warden warden, ObjectProvider<WardenConnection> connection) {
      return new WardenHealthIndicator(warden, connection.getIfAvailable());
    }
  }

  /**
   * Warden's meters ({@code WardenMetrics}, a {@code MeterBinder} that Boot binds to its registry),
   * with Micrometer and warden-micrometer.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, WardenMetrics.class})
  @ConditionalOnBooleanProperty(name = "warden.metrics.enabled", matchIfMissing = true)
  static class MetricsConfiguration {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    WardenMetrics wardenMetrics(Warden warden, WardenProperties properties) {
      List<String> names = properties.getMetrics().getLockNames();
      return names.isEmpty()
          ? WardenMetrics.of(warden)
          : WardenMetrics.builder(warden).lockNames(names).build();
    }
  }

  /**
   * Warden's observations ({@code WardenObservations}: spans for lock waits and holds through the
   * application's tracing bridge), with warden-micrometer and an {@code ObservationRegistry} bean.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({ObservationRegistry.class, WardenObservations.class})
  @ConditionalOnBooleanProperty(name = "warden.observations.enabled", matchIfMissing = true)
  static class ObservationsConfiguration {
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(ObservationRegistry.class)
    WardenObservations wardenObservations(
        Warden warden, ObservationRegistry registry, WardenProperties properties) {
      WardenProperties.Observations settings = properties.getObservations();
      return WardenObservations.builder(warden, registry)
          .lockNames(settings.getLockNames())
          .fencingTokens(settings.isFencingTokens())
          .build();
    }
  }

  /** The {@code warden} endpoint, with spring-boot-actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  @ConditionalOnAvailableEndpoint(WardenEndpoint.class)
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    WardenEndpoint wardenEndpoint(Warden warden) {
      return new WardenEndpoint(warden);
    }
  }
}
