package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** The command line paths that end before any Redis is needed. */
class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
  }

  private String out() {
    return out.toString(UTF_8);
  }

  private String err() {
    return err.toString(UTF_8);
  }

  @Test
  void noArgumentsPrintsTheUsageAndSucceeds() {
    assertThat(run()).isZero();
    assertThat(out()).startsWith("Usage: warden <command>").contains("demo", "inspect");
  }

  @Test
  void helpPrintsTheUsageAndSucceeds() {
    assertThat(run("help")).isZero();
    assertThat(out()).startsWith("Usage: warden <command>");
    assertThat(run("demo", "--help")).isZero();
  }

  @Test
  void chaosWithAnUnknownDeploymentExitsWithTwoNamingIt() {
    assertThat(run("chaos", "--deployment", "galaxy")).isEqualTo(2);
    assertThat(err()).contains("--deployment must be single, sentinel, cluster or all: galaxy");
    assertThat(out()).isEmpty();
  }

  @Test
  void chaosShorterThanTwentySecondsExitsWithTwoNamingTheValue() {
    assertThat(run("chaos", "--seconds", "5")).isEqualTo(2);
    assertThat(err()).contains("--seconds must be a whole number from 20 to 86400: 5");
  }

  @Test
  void chaosWithUnknownWakeUpsExitsWithTwoNamingTheValue() {
    assertThat(run("chaos", "--wake-ups", "pigeons")).isEqualTo(2);
    assertThat(err()).contains("--wake-ups must be client, scripts or auto: pigeons");
    assertThat(out()).isEmpty();
  }

  @Test
  void chaosCheckOfADirectoryWithoutLogsExitsWithTwoNamingIt() {
    assertThat(run("chaos", "--check", "/nonexistent/chaos")).isEqualTo(2);
    assertThat(err()).contains("--check found no chaos logs under /nonexistent/chaos");
  }

  @Test
  void unknownCommandExitsWithTwoNamingIt() {
    assertThat(run("frobnicate", "--now")).isEqualTo(2);
    assertThat(err()).startsWith("warden: unknown command: frobnicate").contains("Usage: warden");
    assertThat(out()).isEmpty();
  }

  @Test
  void zeroWorkersExitsWithTwoNamingTheOptionAndTheValue() {
    assertThat(run("demo", "--workers", "0")).isEqualTo(2);
    assertThat(err()).contains("--workers must be a whole number from 1 to 64: 0");
    assertThat(out()).isEmpty();
  }

  @Test
  void nonNumericWorkersExitsWithTwoNamingTheOptionAndTheValue() {
    assertThat(run("demo", "--workers", "x")).isEqualTo(2);
    assertThat(err()).contains("--workers").contains(": x");
  }

  @Test
  void badSecondsExitsWithTwoEvenWhenOtherOptionsAreFine() {
    assertThat(run("demo", "--threads", "2", "--seconds=-1")).isEqualTo(2);
    assertThat(err()).contains("--seconds must be a whole number from 1 to 3600: -1");
  }

  @Test
  void inspectWithoutALockNameExitsWithTwo() {
    assertThat(run("inspect")).isEqualTo(2);
    assertThat(err()).contains("inspect needs a lock name");
  }

  @Test
  void inspectWithTwoLockNamesExitsWithTwoNamingThem() {
    assertThat(run("inspect", "a", "b")).isEqualTo(2);
    assertThat(err()).contains("inspect takes one lock name, not 2: a b");
  }

  @Test
  void workerWithoutUriExitsWithTwo() {
    assertThat(run("worker", "--threads", "1")).isEqualTo(2);
    assertThat(err()).contains("worker: --uri or WARDEN_URI is required");
  }

  @Test
  void clusterAndSentinelTogetherExitWithTwo() {
    assertThat(run("demo", "--cluster", "--sentinel")).isEqualTo(2);
    assertThat(err()).contains("--cluster and --sentinel exclude each other");
    assertThat(out()).isEmpty();
  }

  @Test
  void sentinelWithAUriExitsWithTwoSayingWhatToGiveInstead() {
    assertThat(run("demo", "--sentinel", "--uri", "redis://127.0.0.1:1")).isEqualTo(2);
    assertThat(err()).contains("--sentinel starts a throwaway Sentinel set", "redis-sentinel://");
  }

  @Test
  void failoverWithoutAThrowawayClusterOrSentinelSetExitsWithTwo() {
    assertThat(run("demo", "--failover")).isEqualTo(2);
    assertThat(err()).contains("--failover fails over a throwaway deployment");
    out.reset();
    err.reset();
    assertThat(run("demo", "--failover", "--cluster", "--uri", "redis://127.0.0.1:1")).isEqualTo(2);
    assertThat(err()).contains("without --uri");
  }

  @Test
  void aFlagGivenAValueExitsWithTwoNamingIt() {
    assertThat(run("demo", "--cluster=yes")).isEqualTo(2);
    assertThat(err()).contains("--cluster takes no value: --cluster=yes");
  }

  @Test
  void inspectOfAnUnreachableRedisNeverPrintsItsPassword() {
    assertThat(run("inspect", "orders", "--uri", "redis://user:s3cret@127.0.0.1:1")).isEqualTo(1);
    assertThat(err()).contains("redis://user:***@127.0.0.1:1").doesNotContain("s3cret");
  }
}
