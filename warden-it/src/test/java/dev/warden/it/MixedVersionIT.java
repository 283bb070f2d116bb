package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The on-Redis format as an API: during a rolling deploy, clients of the previous version and of
 * this one take the same lock. Each side runs in its own JVM (the previous version's {@code
 * warden-core} jar, kept under {@code src/test/compat}, in place of this build's classes), both
 * with two threads in turns; together they must keep mutual exclusion (an exact counter raised by
 * read-then-write under the lock) and hand out fencing tokens that strictly rise across both.
 */
class MixedVersionIT {
  /**
   * The previous version's client: 0.1.0-SNAPSHOT as of commit 38e4092, never released
   * (scripts/compat-jar.sh).
   */
  static final Path PREVIOUS = Path.of("src/test/compat/warden-core-0.1.0-38e4092.jar");

  private static final int THREADS = 2;
  private static final int ROUNDS = 150;

  @ParameterizedTest
  @ValueSource(strings = {"lock", "fair"})
  void thePreviousReleaseAndThisOneShareALock(String type) throws Exception {
    assertThat(PREVIOUS).as("the previous version's jar").exists();
    String name = "mixed-" + type;
    try (RedisServer redis = RedisServer.start();
        JvmProcess previous =
            JvmProcess.start(
                previousClassPath(), MixedVersionWorkerMain.class, args(redis, type, "previous"));
        JvmProcess current =
            JvmProcess.start(MixedVersionWorkerMain.class, args(redis, type, "current"))) {
      previous.awaitLine("STARTED", Duration.ofSeconds(30));
      current.awaitLine("STARTED", Duration.ofSeconds(30));
      redis.redis().rpush(name + ":go", "previous", "current");
      assertThat(previous.awaitLine("DONE", Duration.ofMinutes(2)))
          .as("previous version: %s", previous.lines())
          .isEqualTo("DONE " + THREADS * ROUNDS);
      assertThat(current.awaitLine("DONE", Duration.ofMinutes(2)))
          .as("this release: %s", current.lines())
          .isEqualTo("DONE " + THREADS * ROUNDS);
      assertThat(redis.redis().get(name + ":counter"))
          .as("additions under the lock: none lost to two holders at once")
          .isEqualTo(Integer.toString(2 * THREADS * ROUNDS));
      List<String> entries = redis.redis().lrange(name + ":tokens", 0, -1);
      assertThat(entries).hasSize(2 * THREADS * ROUNDS);
      assertThat(entries)
          .anyMatch(e -> e.contains(" previous-"))
          .anyMatch(e -> e.contains(" current-"));
      List<Long> tokens = new ArrayList<>();
      for (String entry : entries) {
        tokens.add(Long.parseLong(entry.substring(0, entry.indexOf(' '))));
      }
      for (int i = 1; i < tokens.size(); i++) {
        assertThat(tokens.get(i))
            .as("token %d (%s) after %s", i, entries.get(i), entries.get(i - 1))
            .isGreaterThan(tokens.get(i - 1));
      }
      long handovers = 0;
      for (int i = 1; i < entries.size(); i++) {
        if (side(entries.get(i)) != side(entries.get(i - 1))) {
          handovers++;
        }
      }
      assertThat(handovers).as("the lock passed between the releases").isGreaterThan(10);
    }
  }

  private static boolean side(String entry) {
    return entry.contains(" previous-");
  }

  private static String[] args(RedisServer redis, String type, String worker) {
    return new String[] {
      redis.uri(),
      type,
      "mixed-" + type,
      Integer.toString(THREADS),
      Integer.toString(ROUNDS),
      worker
    };
  }

  /** This JVM's class path with this build's warden-core replaced by the previous version's. */
  private static String previousClassPath() {
    List<String> entries =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !isWardenCore(e))
            .collect(Collectors.toCollection(ArrayList::new));
    entries.add(0, PREVIOUS.toAbsolutePath().toString());
    return String.join(File.pathSeparator, entries);
  }

  private static boolean isWardenCore(String entry) {
    Path path = Path.of(entry);
    String file = path.getFileName() == null ? "" : path.getFileName().toString();
    return file.startsWith("warden-core-")
        || (Files.isDirectory(path) && entry.replace('\\', '/').contains("/warden-core/"));
  }
}
