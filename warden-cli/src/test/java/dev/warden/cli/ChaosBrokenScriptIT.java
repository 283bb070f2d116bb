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
 * The checker sees a real double grant and a real created permit: a short {@code warden chaos} run
 * whose workers load scripts broken on purpose, through the test-only seam {@link
 * Chaos#TEST_SCRIPTS_PROPERTY}, must fail. A {@code lock-acquire.lua} that first deletes the lock's
 * hash on one call in two (whoever asks takes the lock from its holder) must show as "two holders
 * without a fault"; a {@code semaphore-update.lua} that adds one permit too many on one release in
 * four, as a plain semaphore with more permits than its 3 in an epoch no fault rewound. The last 10
 * s of a run have no fault, so what breaks then has nothing to hide behind.
 */
class ChaosBrokenScriptIT {
  private static final String LOCK_SCRIPT = "dev/warden/internal/lock/driver/lock-acquire.lua";
  private static final String SEMAPHORE_SCRIPT = "dev/warden/internal/sync/semaphore-update.lua";

  /** Lua put in front of the real lock script: forgets the holder on one call in two. */
  private static final String LOCK_BREAKAGE =
      """
      -- BROKEN ON PURPOSE by ChaosBrokenScriptIT: one call in two forgets the lock's holder first
      if tonumber(redis.call('TIME')[2]) % 2 == 0 then
        redis.call('DEL', KEYS[1])
      end
      """;

  /** Lua put in front of the real semaphore script: one release in four adds a permit more. */
  private static final String SEMAPHORE_BREAKAGE =
      """
      -- BROKEN ON PURPOSE by ChaosBrokenScriptIT: one release in four creates a permit
      if ARGV[1] == 'add' and tonumber(ARGV[2]) > 0 and tonumber(redis.call('TIME')[2]) % 4 == 0 then
        redis.call('INCRBY', KEYS[1], 1)
      end
      """;

  @Test
  void aRunAgainstScriptsThatIgnoreTheHolderAndCreatePermitsFails() throws IOException {
    // Kept after the build (target/), so that the logs can be read.
    Path dir = Files.createDirectories(Path.of("target", "chaos-logs", "ChaosBrokenScriptIT"));
    Path scripts = dir.resolve("scripts");
    breakScript(scripts, LOCK_SCRIPT, LOCK_BREAKAGE);
    breakScript(scripts, SEMAPHORE_SCRIPT, SEMAPHORE_BREAKAGE);
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
        .containsPattern(
            "the plain semaphore chaos-sem-[0-9]+ has [0-9]+ permits after the run, above its 3,"
                + " with no fault that lost data since it was new")
        .contains(
            "  logs in "
                + logs.resolve("single").toAbsolutePath()
                + "; every violation in violations.txt")
        .contains("VERDICT: FAIL");
    assertThat(status).isEqualTo(1);
    assertThat(logs.resolve("single").resolve("violations.txt"))
        .content(UTF_8)
        .contains("two holders without a fault: chaos-lock held by writer");
  }

  /** Writes {@code script} to {@code scripts}, with {@code breakage} in front of the real one. */
  private static void breakScript(Path scripts, String script, String breakage) throws IOException {
    Path broken = scripts.resolve(script);
    Files.createDirectories(broken.getParent());
    try (InputStream in = ChaosBrokenScriptIT.class.getClassLoader().getResourceAsStream(script)) {
      assertThat(in).as(script + " on the class path").isNotNull();
      Files.writeString(broken, breakage + new String(in.readAllBytes(), UTF_8), UTF_8);
    }
  }
}
