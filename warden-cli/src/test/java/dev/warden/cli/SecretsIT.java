package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** {@code warden inspect} and {@code warden demo} never print the password of a URI. */
class SecretsIT {
  private static final String PASSWORD = "Cli-S3cr3t-77aa";

  private final ByteArrayOutputStream output = new ByteArrayOutputStream();

  private int run(String... args) {
    PrintStream both = new PrintStream(output, true, UTF_8);
    return Main.run(args, both, both);
  }

  @Test
  void inspectWithAGoodAWrongAndAMalformedPasswordedUriNeverPrintsThePassword() {
    try (RedisServer redis = RedisServer.start()) {
      WardenAcl.createUser(redis, "app", PASSWORD, "~* &* +@all");
      String good = "redis://app:" + PASSWORD + "@127.0.0.1:" + redis.port();
      assertThat(run("inspect", "orders", "--uri", good)).isZero();
      redis.redis().aclSetuser("app", io.lettuce.core.AclSetuserArgs.Builder.resetpass());
      assertThat(run("inspect", "orders", "--uri", good)).isEqualTo(1);
      assertThat(run("inspect", "orders", "--uri", good + "/abc")).isNotZero();
      assertThat(run("demo", "--uri", good + "/abc", "--seconds", "1")).isNotZero();
    }
    assertThat(output.toString(UTF_8))
        .contains("Lock 'orders' at redis://app:***@127.0.0.1")
        .contains("WRONGPASS")
        .doesNotContain(PASSWORD);
  }

  @Test
  void theDemoHandsItsWorkersThePasswordedUriOutsideTheirCommandLines() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      WardenAcl.createUser(redis, "app", PASSWORD, "~* &* +@all");
      String good = "redis://app:" + PASSWORD + "@127.0.0.1:" + redis.port();
      java.util.concurrent.CompletableFuture<Integer> demo =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () ->
                  run("demo", "--uri", good, "--workers", "1", "--threads", "1", "--seconds", "2"));
      java.util.Set<String> seen = new java.util.HashSet<>();
      while (!demo.isDone()) { // every command line of the demo's workers, as ps shows them
        ProcessHandle.current()
            .descendants()
            .forEach(p -> p.info().commandLine().ifPresent(seen::add));
        Thread.onSpinWait();
      }
      assertThat(demo.get()).isZero();
      assertThat(seen).anyMatch(line -> line.contains(" worker"));
      assertThat(seen).noneMatch(line -> line.contains(PASSWORD));
    }
    assertThat(output.toString(UTF_8)).contains("VERDICT: PASS").doesNotContain(PASSWORD);
  }
}
