package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --key-prefix} of {@code inspect}, {@code doctor} and {@code demo}: each works in the
 * namespace of a Warden built with {@code keyPrefix(P)}, and a malformed prefix is a usage error
 * naming it.
 */
class KeyPrefixCliIT {
  private static final String PASSWORD = "Prefix-S3cr3t-17";
  private static RedisServer redis;

  private final ByteArrayOutputStream output = new ByteArrayOutputStream();

  @BeforeAll
  static void startServer() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @BeforeEach
  void flush() {
    redis.flushAll();
  }

  private int run(String... args) {
    PrintStream both = new PrintStream(output, true, UTF_8);
    return Main.run(args, both, both);
  }

  @Test
  void inspectShowsTheLockOfTheWardenWithThatPrefix() {
    try (Warden billing = Warden.builder().uri(redis.uri()).keyPrefix("billing").build()) {
      DistributedLock lock = billing.lock("orders");
      lock.lock();
      try {
        assertThat(run("inspect", "orders", "--uri", redis.uri(), "--key-prefix", "billing"))
            .isZero();
        assertThat(output.toString(UTF_8))
            .contains("Lock 'orders' at " + redis.uri() + " (key prefix billing)")
            .containsPattern("key +billing:warden:\\{orders\\}:lock")
            .containsPattern("state +held by 1 owner");
        output.reset();
        assertThat(run("inspect", "orders", "--uri", redis.uri())).isZero();
        assertThat(output.toString(UTF_8))
            .as("without the prefix: another lock, free")
            .containsPattern("key +warden:\\{orders\\}:lock")
            .containsPattern("state +free");
      } finally {
        lock.unlock();
      }
    }
  }

  @Test
  void doctorChecksInsideThePrefixThatTheUsersKeyPatternCovers() {
    WardenAcl.createUser(redis, "billing", PASSWORD, WardenAcl.singleServer("billing"));
    String uri = "redis://billing:" + PASSWORD + "@127.0.0.1:" + redis.port();
    assertThat(run("doctor", "--uri", uri, "--key-prefix", "billing")).isZero();
    assertThat(output.toString(UTF_8))
        .contains("  key prefix billing: checked under billing:warden:* (keys and channels)")
        .contains("verdict: Warden can work here")
        .doesNotContain(PASSWORD);
    output.reset();
    assertThat(run("doctor", "--uri", uri)).isEqualTo(1);
    assertThat(output.toString(UTF_8))
        .contains("scripts (EVALSHA, EVAL): refused")
        .contains("its key pattern ~warden:* covers every key Warden uses")
        .doesNotContain(PASSWORD);
  }

  @Test
  void demoRunsItsWorkersUnderThePrefix() {
    assertThat(
            run(
                "demo",
                "--uri",
                redis.uri(),
                "--key-prefix",
                "billing",
                "--workers",
                "2",
                "--threads",
                "2",
                "--seconds",
                "2"))
        .isZero();
    assertThat(output.toString(UTF_8)).contains("(key prefix billing)").contains("PASS");
    assertThat(redis.redis().keys("*warden:*"))
        .isNotEmpty()
        .allMatch(key -> key.startsWith("billing:warden:"));
  }

  @Test
  void aMalformedPrefixIsAUsageErrorNamingIt() {
    assertThat(run("inspect", "orders", "--uri", redis.uri(), "--key-prefix", "bil{ling}"))
        .isEqualTo(2);
    assertThat(output.toString(UTF_8)).contains("keyPrefix must be 1 to 64").contains("bil{ling}");
  }
}
