package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A short {@code warden chaos} run inside the default tests: one redis-server, two worker
 * processes, one minute of faults. Long runs and the other deployments: {@code ./warden chaos
 * --deployment all --minutes 10} (docs/chaos.md).
 */
class ChaosIT {
  @Test
  void aMinuteOfFaultsOnOneServerEndsWithNoViolation() throws IOException {
    // Kept after the build (target/), so that a failure can be read in the logs.
    Path logs = Files.createDirectories(Path.of("target", "chaos-logs", "ChaosIT"));
    Run run =
        chaos(
            logs,
            "--deployment",
            "single",
            "--seconds",
            "60",
            "--workers",
            "2",
            "--threads",
            "2",
            "--seed",
            "15");

    Path dir = logs.resolve("single").toAbsolutePath();
    Path violations = dir.resolve("violations.txt");
    assertThat(run.output())
        .as(
            "%s%nlogs in %s%nviolations.txt:%n%s%nstderr:%n%s",
            run.output(),
            dir,
            Files.exists(violations) ? Files.readString(violations, UTF_8) : "(none written)",
            run.errors())
        .contains("VERDICT: PASS");
    assertThat(run.status()).isZero();
    assertThat(figure(run.output(), "faults injected")).isGreaterThanOrEqualTo(5);
    assertThat(figure(run.output(), "acquisitions")).isPositive();
    assertThat(figure(run.output(), "violations")).isZero();
    assertThat(run.output())
        .containsPattern("plain semaphore +judged at exactly its 3 permits for [1-9]");
    assertThat(dir.resolve("worker-2.log")).isNotEmptyFile();
    // the default mode is unchanged: the scripts publish where the server allows it
    assertThat(run.output()).contains("Wake-ups: FROM_SCRIPTS (asked: AUTO)");
  }

  @Test
  void twentySecondsOfFaultsWithWakeUpsFromTheClientEndWithNoViolation() throws IOException {
    Path logs = Files.createDirectories(Path.of("target", "chaos-logs", "ChaosIT-client"));
    Run run =
        chaos(
            logs,
            "--seconds",
            "20",
            "--workers",
            "2",
            "--threads",
            "2",
            "--seed",
            "22",
            "--wake-ups",
            "client");

    assertThat(run.output())
        .as("%s%nlogs in %s%nstderr:%n%s", run.output(), logs.toAbsolutePath(), run.errors())
        .contains("Wake-ups: FROM_CLIENT (asked: FROM_CLIENT)")
        .contains("VERDICT: PASS");
    assertThat(run.status()).isZero();
    assertThat(figure(run.output(), "faults injected")).isPositive();
    assertThat(figure(run.output(), "acquisitions")).isPositive();
    assertThat(figure(run.output(), "violations")).isZero();
  }

  /** What a {@code warden chaos} run printed and returned. */
  private record Run(int status, String output, String errors) {}

  /** Runs {@code warden chaos} with {@code options} and {@code --out logs}. */
  private static Run chaos(Path logs, String... options) {
    String[] args = new String[options.length + 3];
    args[0] = "chaos";
    System.arraycopy(options, 0, args, 1, options.length);
    args[options.length + 1] = "--out";
    args[options.length + 2] = logs.toString();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Main.run(args, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
    return new Run(status, out.toString(UTF_8), err.toString(UTF_8));
  }

  private static long figure(String output, String name) {
    Matcher matcher = Pattern.compile(name + " +([0-9,]+)").matcher(output);
    assertThat(matcher.find()).as(name + " in " + output).isTrue();
    return Long.parseLong(matcher.group(1).replace(",", ""));
  }
}
