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
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int status =
        Main.run(
            new String[] {
              "chaos",
              "--deployment",
              "single",
              "--seconds",
              "60",
              "--workers",
              "2",
              "--threads",
              "2",
              "--seed",
              "15",
              "--out",
              logs.toString()
            },
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));

    String output = out.toString(UTF_8);
    Path dir = logs.resolve("single").toAbsolutePath();
    Path violations = dir.resolve("violations.txt");
    assertThat(output)
        .as(
            "%s%nlogs in %s%nviolations.txt:%n%s%nstderr:%n%s",
            output,
            dir,
            Files.exists(violations) ? Files.readString(violations, UTF_8) : "(none written)",
            err.toString(UTF_8))
        .contains("VERDICT: PASS");
    assertThat(status).isZero();
    assertThat(figure(output, "faults injected")).isGreaterThanOrEqualTo(5);
    assertThat(figure(output, "acquisitions")).isPositive();
    assertThat(figure(output, "violations")).isZero();
    assertThat(output)
        .containsPattern("plain semaphore +judged at exactly its 3 permits for [1-9]");
    assertThat(dir.resolve("worker-2.log")).isNotEmptyFile();
    // the default mode is unchanged: the scripts publish where the server allows it
    assertThat(output).contains("Wake-ups: FROM_SCRIPTS (asked: AUTO)");
  }

  @Test
  void twentySecondsOfFaultsWithWakeUpsFromTheClientEndWithNoViolation() throws IOException {
    Path logs = Files.createDirectories(Path.of("target", "chaos-logs", "ChaosIT-client"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int status =
        Main.run(
            new String[] {
              "chaos",
              "--seconds",
              "20",
              "--workers",
              "2",
              "--threads",
              "2",
              "--seed",
              "22",
              "--wake-ups",
              "client",
              "--out",
              logs.toString()
            },
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));

    String output = out.toString(UTF_8);
    assertThat(output)
        .as("%s%nlogs in %s%nstderr:%n%s", output, logs.toAbsolutePath(), err.toString(UTF_8))
        .contains("Wake-ups: FROM_CLIENT (asked: FROM_CLIENT)")
        .contains("VERDICT: PASS");
    assertThat(status).isZero();
    assertThat(figure(output, "faults injected")).isPositive();
    assertThat(figure(output, "acquisitions")).isPositive();
    assertThat(figure(output, "violations")).isZero();
  }

  private static long figure(String output, String name) {
    Matcher matcher = Pattern.compile(name + " +([0-9,]+)").matcher(output);
    assertThat(matcher.find()).as(name + " in " + output).isTrue();
    return Long.parseLong(matcher.group(1).replace(",", ""));
  }
}
