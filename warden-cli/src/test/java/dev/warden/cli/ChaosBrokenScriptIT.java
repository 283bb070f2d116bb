package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The checker sees a real double grant: a short {@code warden chaos} run whose workers load a
 * {@code lock-acquire.lua} broken on purpose (one call in two first deletes the lock's hash, so
 * whoever asks takes the lock from its holder), through the test-only seam {@link
 * Chaos#TEST_SCRIPTS_PROPERTY}, must fail with "two holders without a fault". The last 10 s of a
 * run have no fault, so the double grants made then have nothing to hide behind.
 */
class ChaosBrokenScriptIT {
  private static final String SCRIPT = "dev/warden/internal/lock/driver/lock-acquire.lua";

  /** Lua put in front of the real script: forgets the holder on one call in two. */
  private static final String BREAKAGE =
      """
      -- BROKEN ON PURPOSE by ChaosBrokenScriptIT: one call in two forgets the lock's holder first
      if tonumber(redis.call('TIME')[2]) % 2 == 0 then
        redis.call('DEL', KEYS[1])
      end
      """;

  @Test
  void aRunAgainstALockScriptThatIgnoresTheHolderFailsWithTwoHoldersWithoutAFault()
      throws IOException {
    // Kept after the build (target/), so that the logs can be read.
    Path dir = Files.createDirectories(Path.of("target", "chaos-logs", "ChaosBrokenScriptIT"));
    Path scripts = dir.resolve("scripts");
    Path broken = scripts.resolve(SCRIPT);
    Files.createDirectories(broken.getParent());
    Files.writeString(broken, BREAKAGE + realScript(), UTF_8);
    Path logs = dir.resolve("logs");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int status;
    System.setProperty(Chaos.TEST_SCRIPTS_PROPERTY, scripts.toString());
    try {
      status =
          Main.run(
              new String[] {
                "chaos",
                "--deployment",
                "single",
                "--seconds",
                "20",
                "--workers",
                "2",
                "--threads",
                "2",
                "--seed",
                "20",
                "--out",
                logs.toString()
              },
              new PrintStream(out, true, UTF_8),
              new PrintStream(err, true, UTF_8));
    } finally {
      System.clearProperty(Chaos.TEST_SCRIPTS_PROPERTY);
    }

    String output = out.toString(UTF_8);
    assertThat(output)
        .as(output + err.toString(UTF_8))
        .contains("TEST ONLY: the workers load Warden's scripts from " + scripts.toAbsolutePath())
        .contains("two holders without a fault: chaos-lock held by writer")
        .contains("VERDICT: FAIL");
    assertThat(status).isEqualTo(1);
  }

  private static String realScript() throws IOException {
    try (InputStream in = ChaosBrokenScriptIT.class.getClassLoader().getResourceAsStream(SCRIPT)) {
      assertThat(in).as(SCRIPT + " on the class path").isNotNull();
      return new String(in.readAllBytes(), UTF_8);
    }
  }
}
