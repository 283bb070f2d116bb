package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each test leaves something behind that the next, in order, must not see. */
@ExtendWith(WardenExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WardenOptions(commandTimeoutMillis = 2_000)
class WardenExtensionIT {
  private static int firstPort;

  @Test
  @Order(1)
  void injectsARunningServerAndTheTestWritesAKey(RedisServer redis) {
    firstPort = redis.port();
    assertThat(redis.isRunning()).isTrue();
    redis.redis().set("left-over", "1");
  }

  @Test
  @Order(2)
  void theNextTestGetsTheSameServerWithNoKeys(RedisServer redis) {
    assertThat(redis.port()).isEqualTo(firstPort);
    assertThat(redis.redis().get("left-over")).isNull();
    assertThat(redis.redis().dbsize()).isZero();
  }

  @Test
  @Order(3)
  void aTestKillsTheServer(RedisServer redis) {
    redis.kill();
  }

  @Test
  @Order(4)
  void theNextTestGetsItRunningAgain(RedisServer redis) {
    assertThat(redis.isRunning()).isTrue();
    assertThat(redis.port()).isEqualTo(firstPort);
    assertThat(redis.redis().ping()).isEqualTo("PONG");
  }

  @Test
  @Order(5)
  void aTestPausesTheServerForLong(RedisServer redis) {
    redis.pause(Duration.ofMinutes(5));
  }

  @Test
  @Order(6)
  void theNextTestGetsItAnsweringAtOnce(RedisServer redis) {
    RedisClient client =
        RedisClient.create(
            RedisURI.builder()
                .withHost(redis.host())
                .withPort(redis.port())
                .withTimeout(Duration.ofSeconds(1))
                .build());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      assertThat(connection.sync().ping()).isEqualTo("PONG");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  @Order(7)
  void aTestRunsCommands(RedisServer redis) {
    redis.redis().set("counted", "1");
    redis.redis().hset("hash", "field", "1");
  }

  @Test
  @Order(8)
  void theNextTestStartsWithZeroCommandStats(RedisServer redis) {
    assertThat(redis.commandCalls())
        .doesNotContainKeys("set", "hset")
        .containsEntry("config|resetstat", 1L);
  }

  @Test
  @Order(9)
  void injectsOneWardenFactoryPerTest(WardenFactory first, WardenFactory second) {
    assertThat(first).isNotNull().isSameAs(second);
  }

  @Test
  @Order(10)
  @WardenOptions(watchdogTimeoutMillis = 2_000, recheckIntervalMillis = 50)
  void injectsDistinctWardensConnectedToTheServerWithTheAnnotatedOptions(
      Warden warden, Warden other, WardenFactory wardens, RedisServer redis) {
    assertThat(warden).isNotSameAs(other);
    Warden custom = wardens.create(builder -> builder.commandTimeout(Duration.ofMillis(500)));
    assertThat(custom).isNotSameAs(warden).isNotSameAs(other);
    warden.lock("injected").lock();
    assertThat(other.lock("injected").tryLock()).as("distinct owners, one server").isFalse();
    assertThat(custom.lock("injected").remainTimeToLive())
        .as("the annotated 2 s watchdog lease, not the default 30 s")
        .isBetween(1L, 2_000L);
    assertThat(redis.redis().clientList().lines().filter(line -> line.contains("name=warden-")))
        .as("a command and a pub/sub connection per Warden")
        .hasSize(6);
  }
}
