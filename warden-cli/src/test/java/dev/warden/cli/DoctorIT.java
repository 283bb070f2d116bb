package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code warden doctor}: the capability report of a deployment, for operators: each check ok or
 * refused with the server's words and what to do, the exit status, and never a password.
 */
class DoctorIT {
  private static final String PASSWORD = "Doctor-S3cr3t-41";
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

  private int run(String... args) {
    PrintStream both = new PrintStream(output, true, UTF_8);
    return Main.run(args, both, both);
  }

  private static String uri(String user) {
    return "redis://" + user + ":" + PASSWORD + "@127.0.0.1:" + redis.port();
  }

  @Test
  void theDocumentedRuleIsReportedOkOnEveryCheck() {
    WardenAcl.createUser(redis, "full", PASSWORD, WardenAcl.SINGLE_SERVER);
    assertThat(run("doctor", "--uri", uri("full"))).isZero();
    assertThat(output.toString(UTF_8))
        .contains("redis://***@127.0.0.1:" + redis.port() + "?timeout=5s\n")
        .contains("  scripts (EVALSHA, EVAL): ok")
        .contains("  TIME from a script: ok")
        .contains("  PUBLISH from a script: ok")
        .contains("  the commands of Warden's scripts: ok")
        .contains("  SUBSCRIBE (wake-ups): ok")
        .contains("  one writable master (INFO replication): ok")
        .contains("  on-Redis data format: ok")
        .contains("  wake-ups: published by the scripts (WakeUps.FROM_SCRIPTS)\n")
        .contains("verdict: Warden can work here")
        .doesNotContain(PASSWORD);
  }

  @Test
  void aUserDeniedPublishAndTimeFromScriptsIsReportedWithTheServersWordsAndTheFix() {
    WardenAcl.createUser(
        redis,
        "no-publish",
        PASSWORD,
        WardenAcl.SINGLE_SERVER.replace(" +publish", "").replace(" +time", ""));
    assertThat(run("doctor", "--uri", uri("no-publish"))).isEqualTo(1);
    assertThat(output.toString(UTF_8))
        .contains("  scripts (EVALSHA, EVAL): ok")
        // the server's words differ (Redis names no command inside a script, Valkey does)
        .containsPattern(
            "  TIME from a script: refused \\(the server said: [^\n]+\\); give the user the ACL"
                + " rule of docs/security.md \\(it has \\+time\\)")
        .containsPattern(
            "  PUBLISH from a script: refused \\(the server said: [^\n]+\\); give the user the"
                + " ACL rule of docs/security.md \\(it has \\+publish\\)")
        .contains("verdict: Warden cannot work here as configured: 2 refused")
        .doesNotContain(PASSWORD);
  }

  @Test
  void aRefusedLoginIsReportedAsNoConnectionWithoutThePassword() {
    WardenAcl.createUser(redis, "locked-out", "another-password", WardenAcl.SINGLE_SERVER);
    assertThat(run("doctor", "--uri", uri("locked-out"))).isEqualTo(1);
    assertThat(output.toString(UTF_8))
        .contains("  connect: refused (")
        .contains("WRONGPASS")
        .contains("verdict: Warden cannot connect")
        .doesNotContain(PASSWORD);
  }
}
