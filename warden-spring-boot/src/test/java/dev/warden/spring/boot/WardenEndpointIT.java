package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The warden endpoint lists this instance's holds and waiters, and only this instance's. */
@ExtendWith(WardenExtension.class)
class WardenEndpointIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class));

  @Test
  void theEndpointListsThisInstancesHoldsAndWaitersByName(RedisServer redis, Warden other) {
    DistributedLock busy = other.lock("busy");
    busy.lock();
    runner
        .withPropertyValues(
            "warden.uri=" + redis.uri(), "management.endpoints.web.exposure.include=warden")
        .run(
            context -> {
              Warden warden = context.getBean(Warden.class);
              WardenEndpoint endpoint = context.getBean(WardenEndpoint.class);
              DistributedLock held = warden.lock("held-here");
              held.lock();
              CompletableFuture<Boolean> waiter =
                  Blocking.inThread(() -> warden.lock("busy").tryLock(20, TimeUnit.SECONDS));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> !endpoint.activity().waiters().isEmpty());

              WardenEndpoint.Activity all = endpoint.activity();
              assertThat(all.holds())
                  .singleElement()
                  .satisfies(
                      hold -> {
                        assertThat(hold.type()).isEqualTo("lock");
                        assertThat(hold.name()).isEqualTo("held-here");
                        assertThat(hold.holdCount()).isEqualTo(1);
                        assertThat(hold.renewed()).isTrue();
                        assertThat(hold.lost()).isFalse();
                        assertThat(hold.fencingToken()).isEqualTo(held.fencingToken());
                      });
              assertThat(all.waiters())
                  .singleElement()
                  .satisfies(
                      waiting -> {
                        assertThat(waiting.type()).isEqualTo("lock");
                        assertThat(waiting.name()).isEqualTo("busy");
                      });
              assertThat(endpoint.activity("held-here").holds()).hasSize(1);
              assertThat(endpoint.activity("held-here").waiters()).isEmpty();
              assertThat(endpoint.activity("busy").holds()).isEmpty(); // the other instance's
              assertThat(endpoint.activity("busy").waiters()).hasSize(1);

              busy.unlock();
              assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
              held.unlock();
              await()
                  .atMost(Duration.ofSeconds(5))
                  .until(() -> endpoint.activity("busy").holds().size() == 1);
            });
  }
}
