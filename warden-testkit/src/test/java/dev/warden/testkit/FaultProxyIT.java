package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.testkit.FaultProxy.Direction;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyIT {
  // Generous: a busy 2-core machine may take seconds for what takes milliseconds when idle.
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration SHORT_TIMEOUT = Duration.ofMillis(500);

  private static RedisServer server;
  private static ClientResources resources;

  private FaultProxy proxy;
  private RedisClient client;
  private final AtomicInteger disconnects = new AtomicInteger();

  @BeforeAll
  static void startServer() {
    server = RedisServer.start();
    // Reconnect within 100 ms instead of Lettuce's default back-off of up to 30 s.
    resources =
        DefaultClientResources.builder()
            .reconnectDelay(
                Delay.exponential(
                    Duration.ofMillis(1), Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS))
            .build();
  }

  @AfterAll
  static void stopServer() {
    resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    server.close();
  }

  @BeforeEach
  void startProxy() {
    proxy = FaultProxy.start(server);
  }

  @AfterEach
  void stopProxy() {
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    proxy.close();
  }

  @Test
  void trafficPassesBothWays() {
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      connection.sync().set("proxied", "value");

      assertThat(connection.sync().get("proxied")).isEqualTo("value");
      assertThat(server.redis().get("proxied")).isEqualTo("value");
      assertThat(proxy.connections()).isEqualTo(1);
    }
  }

  @Test
  void blackholeTimesOutAPingWhileTheConnectionStaysOpenAndHealLetsItThrough() {
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");

      proxy.blackhole();
      connection.setTimeout(SHORT_TIMEOUT); // only for the PING that cannot be answered

      assertThatThrownBy(() -> connection.sync().ping())
          .isInstanceOf(RedisCommandTimeoutException.class);
      connection.setTimeout(WAIT);
      assertThat(connection.isOpen()).isTrue();
      assertThat(proxy.connections()).isEqualTo(1);
      assertThat(disconnects).hasValue(0);

      proxy.heal();

      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(connection.sync().ping()).isEqualTo("PONG"));
      assertThat(disconnects).hasValue(0);
    }
  }

  @Test
  void oneWayBlackholeDeliversRequestsAndHoldsBackReplies() {
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");

      proxy.blackhole(Direction.TARGET_TO_CLIENT);
      RedisFuture<String> reply = connection.async().set("one-way", "arrived");

      await().atMost(WAIT).until(() -> "arrived".equals(server.redis().get("one-way")));
      assertThat(reply.isDone()).isFalse();

      proxy.heal();

      await().atMost(WAIT).until(reply::isDone);
      assertThat(reply.toCompletableFuture().join()).isEqualTo("OK");
    }
  }

  @Test
  void delayAddsAtLeastTheDelayToARoundTrip() {
    Duration delay = Duration.ofMillis(200);
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");

      proxy.delay(delay);
      long start = System.nanoTime();
      assertThat(connection.sync().ping()).isEqualTo("PONG");
      long elapsed = System.nanoTime() - start;

      // Once on the way there and once on the way back.
      assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(delay.multipliedBy(2));
    }
  }

  @Test
  void aSubMillisecondDelayIsNotRoundedUpToAMillisecondEachWay() {
    Duration delay = Duration.ofNanos(100_000);
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");

      proxy.delay(delay);
      long[] roundTrips = new long[41];
      for (int i = 0; i < roundTrips.length; i++) {
        long start = System.nanoTime();
        assertThat(connection.sync().ping()).isEqualTo("PONG");
        roundTrips[i] = System.nanoTime() - start;
      }
      java.util.Arrays.sort(roundTrips);
      Duration median = Duration.ofNanos(roundTrips[roundTrips.length / 2]);

      // Each way at least the delay; held by Object.wait, each way took 1 ms or more.
      assertThat(median).isGreaterThanOrEqualTo(delay.multipliedBy(2));
      assertThat(median).isLessThan(Duration.ofMillis(2));
    }
  }

  @Test
  void cutMakesLettuceSeeADisconnectAndReconnectThroughTheProxyOnceHealed() {
    try (StatefulRedisConnection<String, String> connection = connect(WAIT)) {
      long idBefore = connection.sync().clientId();

      proxy.refuse(); // so that reconnecting fails until heal()
      proxy.cut();

      await().atMost(WAIT).until(() -> disconnects.get() >= 1);
      assertThat(connection.isOpen()).isFalse();
      assertThat(proxy.connections()).isZero();

      proxy.heal();

      await().atMost(WAIT).until(connection::isOpen);
      assertThat(connection.sync().clientId()).isNotEqualTo(idBefore);
      assertThat(proxy.connections()).isEqualTo(1);
    }
  }

  @Test
  void refuseFailsNewConnectionsWhileLiveOnesKeepWorking() {
    try (StatefulRedisConnection<String, String> live = connect(WAIT)) {
      assertThat(live.sync().ping()).isEqualTo("PONG");

      proxy.refuse();

      assertThatThrownBy(() -> client.connect()).isInstanceOf(RedisConnectionException.class);
      assertThat(live.sync().ping()).isEqualTo("PONG");
      assertThat(proxy.connections()).isEqualTo(1);

      proxy.heal();

      try (StatefulRedisConnection<String, String> later = client.connect()) {
        assertThat(later.sync().ping()).isEqualTo("PONG");
      }
    }
  }

  private StatefulRedisConnection<String, String> connect(Duration timeout) {
    client =
        RedisClient.create(
            resources,
            RedisURI.builder()
                .withHost(proxy.host())
                .withPort(proxy.port())
                .withTimeout(timeout)
                .build());
    client.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            disconnects.incrementAndGet();
          }
        });
    return client.connect();
  }
}
