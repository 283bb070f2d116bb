package dev.warden.internal.redis;

import dev.warden.internal.base.Settings;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce threads of one deployment: its client resources (event loops, timers), made and shut
 * down the same way by every {@link Deployment}.
 */
final class ClientThreads {
  private ClientThreads() {}

  /**
   * New client resources for one deployment, with the reconnect back-off capped (Lettuce's default
   * grows to 30 s): see {@link Settings#RECONNECT_DELAY_MAX_MILLIS}.
   */
  static ClientResources create() {
    return DefaultClientResources.builder()
        .reconnectDelay(
            () ->
                Delay.exponential(
                    Duration.ofMillis(Settings.RECONNECT_DELAY_FIRST_MILLIS),
                    Duration.ofMillis(Settings.RECONNECT_DELAY_MAX_MILLIS),
                    2,
                    TimeUnit.MILLISECONDS))
        .build();
  }

  /**
   * Shuts the clients down at once (no quiet period, at most 2 s each), then their resources,
   * without waiting for Netty's threads to end.
   */
  // FutureReturnValueIgnored: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  static void shutdown(ClientResources resources, AbstractRedisClient... clients) {
    for (AbstractRedisClient client : clients) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
