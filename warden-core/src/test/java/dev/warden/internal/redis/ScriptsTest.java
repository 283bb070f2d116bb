package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ScriptsTest {
  private static final Path RESOURCES = Path.of("src/main/resources/dev/warden/internal");

  /** Every script, in every package's folder, loaded as Warden loads it. */
  private static List<Script> all() throws IOException {
    try (Stream<Path> files = Files.walk(RESOURCES)) {
      return files
          .filter(file -> file.toString().endsWith(".lua"))
          .filter(file -> !file.getFileName().toString().equals("prelude.lua"))
          .sorted()
          .map(file -> RESOURCES.relativize(file).toString())
          .map(path -> Script.resource(path.substring(0, path.length() - 4)))
          .collect(Collectors.toList());
    }
  }

  @Test
  void everyScriptHasItsHeaderAndPointsToTheWakeMessagesIfItPublishes() throws IOException {
    List<Script> scripts = all();
    assertThat(scripts).hasSize(37);
    for (Script script : scripts) {
      String source = script.source();
      assertThat(script.body()).as(script.name()).isEqualTo(Script.prelude() + source);
      assertThat(source).as(script.name()).startsWith("-- " + script.name() + ": ");
      String header =
          source.lines().takeWhile(line -> line.startsWith("--")).collect(Collectors.joining("\n"));
      assertThat(header)
          .as(script.name())
          .contains("-- KEYS")
          .contains("-- ARGV")
          .contains("-- Returns");
      if (source.contains("'PUBLISH'")) {
        assertThat(header).as(script.name()).contains("\"Wake messages\" in CONCURRENCY.md");
      }
    }
  }

  @Test
  void theShaIsTheSha1OfTheBodyAsRedisComputesIt() throws IOException {
    // well-known SHA-1 values pin the digest and its lower-case hex encoding
    assertThat(Script.sha1("")).isEqualTo("da39a3ee5e6b4b0d3255bfef95601890afd80709");
    assertThat(Script.sha1("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    List<Script> scripts = all();
    assertThat(scripts.stream().map(Script::sha).distinct()).hasSize(scripts.size());
    for (Script script : scripts) {
      assertThat(script.sha()).as(script.name()).isEqualTo(Script.sha1(script.body()));
    }
  }

  @Test
  void noScriptWalksAWholeHashOrSet() throws IOException {
    // cost must not grow with the number of holders or waiters: only the diagnostic inspect
    // script reads a hash whole (and the capability probe calls HGETALL on a key that never
    // exists, to learn whether the ACL allows it)
    for (Script script : all()) {
      if (!script.name().equals("lock-inspect") && !script.name().equals("server-probe")) {
        assertThat(script.body())
            .as(script.name())
            .doesNotContain("HGETALL")
            .doesNotContain("HKEYS")
            .doesNotContain("SMEMBERS")
            .doesNotContainPattern("ZRANGE', [a-z]+, 0, -1");
      }
    }
  }
}
