package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisServerIT {

  @Test
  void startAnswersPingOnALocalPort() {
    try (RedisServer server = RedisServer.start()) {
      assertThat(server.isRunning()).isTrue();
      assertThat(server.host()).isEqualTo("127.0.0.1");
      assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
      assertThat(server.redis().ping()).isEqualTo("PONG");
    }
  }

  @Test
  void startAppendsTheExtraArguments() {
    try (RedisServer server = RedisServer.start("--maxmemory", "10mb")) {
      assertThat(server.redis().configGet("maxmemory")).containsEntry("maxmemory", "10485760");
    }
  }

  @Test
  void startRunsWithoutPersistenceAndWithDebug() {
    try (RedisServer server = RedisServer.start()) {
      assertThat(server.redis().configGet("save")).containsEntry("save", "");
      assertThat(server.redis().configGet("appendonly")).containsEntry("appendonly", "no");
      server.redis().set("key", "value");
      assertThat(server.redis().debugObject("key")).startsWith("Value at:");
    }
  }

  @Test
  void startFailureQuotesTheServerLog() {
    assertThatThrownBy(() -> RedisServer.start("--no-such-directive", "1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no-such-directive");
  }

  @Test
  void restartKeepsThePortAndLosesTheData() {
    try (RedisServer server = RedisServer.start()) {
      int port = server.port();
      server.redis().set("key", "value");

      server.restart();

      assertThat(server.port()).isEqualTo(port);
      assertThat(server.isRunning()).isTrue();
      assertThat(server.redis().get("key")).as("admin connection reconnected").isNull();
      assertThat(server.redis().dbsize()).isZero();
    }
  }

  @Test
  void killStopsTheServerUntilRestart() {
    try (RedisServer server = RedisServer.start()) {
      server.kill();

      assertThat(server.isRunning()).isFalse();
      assertRefusesConnections(server);

      server.restart();

      assertThat(server.isRunning()).isTrue();
      assertThat(server.redis().ping()).isEqualTo("PONG");
    }
  }

  @Test
  void pauseTimesCommandsOutUntilItEnds() {
    try (RedisServer server = RedisServer.start();
        ShortTimeoutClient client = new ShortTimeoutClient(server, Duration.ofMillis(200))) {
      assertThat(client.connection.sync().ping()).isEqualTo("PONG");

      server.pause(Duration.ofSeconds(2));

      assertThat(server.isRunning()).as("a paused server is still running").isTrue();
      assertThatThrownBy(() -> client.connection.sync().ping())
          .isInstanceOf(RedisCommandTimeoutException.class);
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptionsInstanceOf(RedisCommandTimeoutException.class)
          .until(() -> "PONG".equals(client.connection.sync().ping()));
    }
  }

  @Test
  void resumeEndsAPauseAtOnce() {
    try (RedisServer server = RedisServer.start();
        ShortTimeoutClient client = new ShortTimeoutClient(server, Duration.ofSeconds(2))) {
      server.pause(Duration.ofMinutes(5));

      server.resume();

      assertThat(client.connection.sync().ping()).isEqualTo("PONG");
    }
  }

  @Test
  void pauseRejectsANegativeDuration() {
    try (RedisServer server = RedisServer.start()) {
      assertThatThrownBy(() -> server.pause(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("duration must not be null or negative: PT-0.001S");
    }
  }

  @Test
  void closeStopsTheProcessAndIsIdempotent() {
    RedisServer server = RedisServer.start();
    server.redis().ping();
    server.pause(Duration.ofMinutes(5));

    server.close();

    assertThat(server.isRunning()).isFalse();
    assertRefusesConnections(server);
    server.close();
    assertThatThrownBy(server::redis).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void commandCallsCountsEachCommandExactly() {
    try (RedisServer server = RedisServer.start()) {
      server.redis().configResetstat();

      server.redis().set("a", "1");
      server.redis().set("b", "2");
      server.redis().set("c", "3");
      server.redis().get("a");

      assertThat(server.commandCalls())
          .containsEntry("set", 3L)
          .containsEntry("get", 1L)
          .doesNotContainKey("hget");
    }
  }

  private static void assertRefusesConnections(RedisServer server) {
    assertThatThrownBy(
            () -> {
              try (Socket socket = new Socket(server.host(), server.port())) {
                socket.getInputStream();
              }
            })
        .isInstanceOf(ConnectException.class);
  }

  /** A connection of the test's own, with a timeout short enough to observe a pause. */
  private static final class ShortTimeoutClient implements AutoCloseable {
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;

    ShortTimeoutClient(RedisServer server, Duration timeout) {
      client =
          RedisClient.create(
              RedisURI.builder()
                  .withHost(server.host())
                  .withPort(server.port())
                  .withTimeout(timeout)
                  .build());
      connection = client.connect();
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
