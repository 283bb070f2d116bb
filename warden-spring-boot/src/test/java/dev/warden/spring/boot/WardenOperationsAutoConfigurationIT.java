package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.TestCertificates;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The production options of the auto-configured Warden on real servers: key prefix, maximum hold
 * time, graceful shutdown, the application's client resources, and SSL bundles.
 */
@ExtendWith(WardenExtension.class)
class WardenOperationsAutoConfigurationIT {
  @TempDir static Path files;
  private static TestCertificates.Issued ca;
  private static RedisServer tls;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SslAutoConfiguration.class,
                  DataRedisAutoConfiguration.class,
                  WardenAutoConfiguration.class));

  @BeforeAll
  static void startTlsServer() throws Exception {
    TestCertificates certificates = TestCertificates.in(files);
    ca = certificates.authority("warden-boot-ca");
    TestCertificates.Issued server = certificates.issue(ca, "server", "IP:127.0.0.1");
    tls = RedisServer.startWithTls(server.certificate(), server.key(), ca.certificate(), false);
  }

  @AfterAll
  static void stopTlsServer() {
    if (tls != null) {
      tls.close();
    }
  }

  @Test
  void theKeyPrefixAndIdleExpiryPropertiesApply(RedisServer redis) {
    runner
        .withPropertyValues(
            "warden.uri=" + redis.uri(),
            "warden.key-prefix=billing",
            "warden.synchronizer-idle-expiry=5s",
            "warden.command-timeout=2s") // the expiry must be at least twice it
        .run(
            context -> {
              LockHandle held =
                  context.getBean(Warden.class).lock("invoices").acquire(Duration.ZERO);
              assertThat(redis.redis().exists("billing:warden:{invoices}:lock")).isEqualTo(1);
              assertThat(redis.redis().exists("warden:{invoices}:lock")).isZero();
              held.close();
              assertThat(context.getBean(Warden.class).semaphore("slots").trySetPermits(1))
                  .isTrue();
              assertThat(redis.redis().pttl("billing:warden:{slots}:semaphore"))
                  .isBetween(1L, 5000L);
            });
  }

  @Test
  void theMaxHoldTimePropertyEndsAHoldAtTheLimit(RedisServer redis) {
    runner
        .withPropertyValues(
            "warden.uri=" + redis.uri(), "warden.watchdog-timeout=1s", "warden.max-hold-time=1s")
        .run(
            context -> {
              LockHandle held = context.getBean(Warden.class).lock("long").acquire(Duration.ZERO);
              held.leaseLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
              assertThatThrownBy(held::close)
                  .isInstanceOf(LeaseExpiredException.class)
                  .hasMessageContaining("PT1S");
            });
  }

  @Test
  void stoppingTheContextHandsHeldLocksOverAfterTheGrace(RedisServer redis, WardenFactory wardens)
      throws Exception {
    Warden other = wardens.create();
    CompletableFuture<LockHandle> held = new CompletableFuture<>();
    CompletableFuture<Warden> closed = new CompletableFuture<>();
    runner
        .withPropertyValues(
            "warden.uri=" + redis.uri(),
            "warden.watchdog-timeout=30s",
            "warden.shutdown.grace=200ms")
        .run(
            context -> {
              assertThat(context).hasSingleBean(WardenShutdown.class);
              closed.complete(context.getBean(Warden.class));
              held.complete(closed.get().lock("job").acquire(Duration.ZERO));
              assertThat(other.lock("job").tryLock()).isFalse();
              long stopping = System.nanoTime();
              context.getSourceApplicationContext().close();
              assertThat(Duration.ofNanos(System.nanoTime() - stopping))
                  .isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
            });
    assertThat(other.lock("job").tryLock()).as("free at once, not after the 30 s lease").isTrue();
    assertThat(held.get().leaseLost().toCompletableFuture().get(1, TimeUnit.SECONDS)).isNull();
    assertThatThrownBy(() -> closed.get().lock("job").tryLock())
        .as("the closed Warden takes no new acquisition")
        .isInstanceOf(WardenException.class);
  }

  @Test
  void theWardenRunsOnTheApplicationsClientResources(RedisServer redis) throws Exception {
    ClientResources resources = DefaultClientResources.create();
    try {
      CompletableFuture<ConnectionActivatedEvent> connected = new CompletableFuture<>();
      resources
          .eventBus()
          .get()
          .filter(ConnectionActivatedEvent.class::isInstance)
          .subscribe(event -> connected.complete((ConnectionActivatedEvent) event));
      runner
          .withPropertyValues("warden.uri=" + redis.uri())
          .withBean(ClientResources.class, () -> resources)
          .run(
              context -> {
                context.getBean(Warden.class).lock("shared").tryLock();
                assertThat(connected.get(5, TimeUnit.SECONDS).remoteAddress().toString())
                    .endsWith(":" + URI.create(redis.uri()).getPort());
              });
      assertThat(resources.eventExecutorGroup().isShuttingDown())
          .as("Warden never shuts the application's resources down")
          .isFalse();
    } finally {
      resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void theSslBundlePropertyTrustsTheBundlesAuthority() {
    runner
        .withPropertyValues(
            "warden.uri=" + tls.tlsUri(),
            "spring.ssl.bundle.pem.redis.truststore.certificate=" + ca.certificate().toUri(),
            "warden.ssl.bundle=redis")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Warden.class).lock("over-tls").tryLock()).isTrue();
            });
  }

  @Test
  void springDataRedisesSslBundleIsReused() {
    int port = URI.create(tls.tlsUri()).getPort();
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + port,
            "spring.data.redis.ssl.bundle=redis",
            "spring.ssl.bundle.pem.redis.truststore.certificate=" + ca.certificate().toUri())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WardenConnection.class).tls()).isPresent();
              assertThat(context.getBean(Warden.class).lock("reused-tls").tryLock()).isTrue();
            });
  }

  @Test
  void withoutTheBundleTheServersCertificateIsNotTrusted() {
    runner
        .withPropertyValues("warden.uri=" + tls.tlsUri())
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("unable to find valid certification path"));
  }
}
