package dev.warden.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layout rules of warden-core, checked on its sources: each package imports only the packages
 * below it, no class grows past what one reader holds in mind (counted in statements, not lines),
 * nothing asks a lock driver what type it is, and time is read and waited for only through the
 * seams ({@code Clock}, {@code Timer}, {@code redis.Calls}) that tests can drive.
 */
class ArchitectureTest {
  private static final Path SOURCES = Path.of("src/main/java");
  private static final String INTERNAL = "dev.warden.internal";

  /** What each internal package may import from the others (the layers, bottom up). */
  private static final Map<String, Set<String>> MAY_IMPORT =
      Map.ofEntries(
          Map.entry("base", Set.of()),
          Map.entry("redis", Set.of("base")),
          Map.entry("redis.sentinel", Set.of("base", "redis")),
          Map.entry("redis.cluster", Set.of("base", "redis")),
          Map.entry("wait", Set.of("base", "redis")),
          Map.entry("lease", Set.of("base", "redis")),
          Map.entry("lock.driver", Set.of("base", "redis", "wait", "lease")),
          Map.entry("lock", Set.of("base", "redis", "wait", "lease", "lock.driver")),
          Map.entry("quorum", Set.of("base", "redis", "lease", "lock")),
          Map.entry("leader", Set.of("base")),
          Map.entry("sync", Set.of("base", "redis", "wait")));

  /**
   * The most non-comment statements ({@link Ncss}) one source file may have: what one reader holds
   * in mind. Javadoc and comments are free.
   */
  private static final int MAX_NCSS = 250;

  /**
   * Real sleeps: {@code Thread.sleep}, {@code TimeUnit.X.sleep}, any use of {@code LockSupport}.
   */
  private static final Pattern SLEEP = Pattern.compile("\\.sleep\\(|\\bLockSupport\\b");

  private static final Pattern IMPORT =
      Pattern.compile(
          "^import (?:static )?dev\\.warden\\.internal\\.([a-z.]+)\\.[A-Z]", Pattern.MULTILINE);

  @Test
  void eachPackageImportsOnlyThePackagesBelowIt() {
    List<String> violations = new ArrayList<>();
    for (Path file : sources()) {
      String pkg = packageOf(file);
      if (!pkg.startsWith(INTERNAL + ".")) {
        continue; // the API and the composition root may use everything below them
      }
      String layer = pkg.substring(INTERNAL.length() + 1);
      assertThat(MAY_IMPORT).as("a known layer for %s", file).containsKey(layer);
      Matcher imports = IMPORT.matcher(read(file));
      while (imports.find()) {
        String imported = imports.group(1);
        if (!imported.equals(layer) && !MAY_IMPORT.get(layer).contains(imported)) {
          violations.add(file + " imports " + INTERNAL + "." + imported);
        }
      }
    }
    assertThat(violations).isEmpty();
  }

  @Test
  void theApiReachesTheInternalsOnlyThroughTheCompositionRoot() {
    for (Path file : sources()) {
      if (packageOf(file).equals("dev.warden")) {
        assertThat(IMPORT.matcher(read(file)).find()).as(file.toString()).isFalse();
      }
    }
  }

  @Test
  void noClassHasMoreThanTwoHundredFiftyStatements() {
    for (Path file : sources()) {
      assertThat(Ncss.count(read(file)))
          .as("non-comment statements (NCSS) of %s", file)
          .isLessThanOrEqualTo(MAX_NCSS);
    }
  }

  @Test
  void nothingAsksALockDriverWhatTypeItIs() {
    for (Path file : sources()) {
      assertThat(read(file))
          .as(file.toString())
          .doesNotContainPattern("instanceof \\w*Driver")
          .doesNotContainPattern("\\(\\w*Driver\\) ");
    }
  }

  @Test
  void onlyTheSystemClockReadsTheMonotonicClock() {
    for (Path file : sources()) {
      if (!file.endsWith(Path.of("base", "Clock.java"))) {
        assertThat(Ncss.code(read(file))).as(file.toString()).doesNotContain("System.nanoTime()");
      }
    }
  }

  @Test
  void onlyTheCompositionRootChoosesTheSystemClock() {
    List<String> violations = new ArrayList<>();
    for (Path file : sources()) {
      if (!file.endsWith(Path.of("internal", "WardenRuntime.java"))
          && Ncss.code(read(file)).contains("Clock.SYSTEM")) {
        violations.add(file + " reads Clock.SYSTEM: take the Clock handed to it");
      }
    }
    assertThat(violations).isEmpty();
  }

  @Test
  void nothingSleepsOutsideItsSeam() {
    List<String> violations = new ArrayList<>();
    for (Path file : sources()) {
      if (!file.endsWith(Path.of("redis", "Calls.java"))
          && SLEEP.matcher(Ncss.code(read(file))).find()) {
        violations.add(file + " sleeps: wait on the Timer (redis.Calls.pause) instead");
      }
    }
    assertThat(violations).isEmpty();
  }

  private static List<Path> sources() {
    try (Stream<Path> files = Files.walk(SOURCES)) {
      List<Path> java =
          files.filter(file -> file.toString().endsWith(".java")).collect(Collectors.toList());
      assertThat(java).hasSizeGreaterThan(50);
      return java;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String packageOf(Path file) {
    return SOURCES.relativize(file.getParent()).toString().replace('/', '.');
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
