package dev.warden.examples.boot;

import dev.warden.testkit.RedisServer;
import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a throwaway redis-server (Warden's testkit: a free port, no persistence) when the
 * application is given no Redis ({@code spring.data.redis.url}, {@code spring.data.redis.host},
 * {@code spring.data.redis.sentinel.master}, {@code spring.data.redis.cluster.nodes} or {@code
 * warden.uri}), points {@code spring.data.redis.url} at it, and stops it with the application.
 * Needs {@code redis-server} on the PATH.
 */
final class ThrowawayRedis implements ApplicationListener<ApplicationEvent> {
  private static final String[] REDIS_SETTINGS = {
    "spring.data.redis.url",
    "spring.data.redis.host",
    "spring.data.redis.sentinel.master",
    "spring.data.redis.cluster.nodes",
    "warden.uri"
  };

  private RedisServer server;

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
      start(prepared.getEnvironment());
    } else if (event instanceof ContextClosedEvent || event instanceof ApplicationFailedEvent) {
      stop();
    }
  }

  private synchronized void start(ConfigurableEnvironment environment) {
    for (String setting : REDIS_SETTINGS) {
      if (environment.containsProperty(setting)) {
        return;
      }
    }
    server = RedisServer.start();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "throwaway-redis", Map.of("spring.data.redis.url", server.uri())));
    System.out.println("Started a throwaway redis-server at " + server.uri());
  }

  private synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
