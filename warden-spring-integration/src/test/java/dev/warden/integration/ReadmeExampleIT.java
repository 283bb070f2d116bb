package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The Spring Integration guide's example ({@link LockConfig}, {@link Reports} and the lock below),
 * as written there, in a real Spring context.
 */
@ExtendWith(WardenExtension.class)
class ReadmeExampleIT {

  private final String invoice = "invoice-42";
  private final List<Long> charges = new ArrayList<>();

  private void charge(String invoice, long fencingToken) {
    assertThat(invoice).isEqualTo(this.invoice);
    charges.add(fencingToken);
  }

  private void charge(String invoice) {
    assertThat(invoice).isEqualTo(this.invoice);
    charges.add(0L);
  }

  @Test
  void theReadmeExampleElectsALeaderAndLocksThroughTheRegistry(RedisServer redis) throws Exception {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context
          .getEnvironment()
          .getPropertySources()
          .addFirst(new MapPropertySource("test", Map.of("redis.uri", redis.uri())));
      context.register(LockConfig.class, Reports.class);
      context.refresh();
      Reports reports = context.getBean(Reports.class);
      WardenLockRegistry lockRegistry = context.getBean(WardenLockRegistry.class);

      await().atMost(Duration.ofSeconds(10)).until(() -> reports.leading);
      Warden warden = context.getBean(Warden.class);
      assertThat(warden.lock("billing:reports").isLocked()).isTrue();

      // example spring-integration-lock: begin
      Lock lock = lockRegistry.obtain("invoice-42"); // the Warden lock "billing:invoice-42"
      lock.lock();
      try {
        charge(invoice, lockRegistry.fencingToken("invoice-42"));
      } finally {
        lock.unlock();
      }

      lockRegistry.executeLocked("invoice-42", Duration.ofSeconds(2), () -> charge(invoice));
      // example spring-integration-lock: end

      assertThat(charges).hasSize(2);
      assertThat(charges.get(0)).isPositive();
      assertThat(warden.lock("billing:invoice-42").isLocked()).isFalse();

      context.getBean(LockRegistryLeaderInitiator.class).stop();
      await().atMost(Duration.ofSeconds(10)).until(() -> !reports.leading);
    }
  }
}
