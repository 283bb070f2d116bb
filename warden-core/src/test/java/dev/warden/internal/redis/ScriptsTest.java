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
          .filter(file -> !file.getFileName().toString().equals("recording-reply.lua"))
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
  void everyWakeUpGoesThroughThePreludesPublishSoTheRecordingTwinRecordsIt() throws IOException {
    // the probe tests PUBLISH from a script itself; every other script must publish through
    // publish(), the one function the recording twin changes
    for (Script script : all()) {
      if (!script.name().equals("server-probe")) {
        assertThat(script.source())
            .as(script.name())
            .doesNotContainPattern("(?i)['\"]s?publish['\"]")
            .doesNotContain("redis.call(PUBLISH");
      }
    }
  }

  @Test
  void theRecordingTwinKeepsTheScriptOnItsLinesAndHasItsOwnSha() throws IOException {
    int preludeLines = Script.prelude().split("\n", -1).length - 1;
    for (Script script : all()) {
      Script twin = script.recording();
      List<String> lines = twin.body().lines().toList();
      List<String> own = script.source().lines().toList();
      // an error at line n of the script is reported at the same line in both bodies
      assertThat(lines.subList(preludeLines, preludeLines + own.size()))
          .as(script.name())
          .isEqualTo(own);
      assertThat(lines.get(preludeLines - 1))
          .startsWith("local function run_script() -- end of the prelude");
      assertThat(twin.body())
          .as(script.name())
          .contains("\nlocal PUBLISH = false\n")
          .doesNotContain("local PUBLISH = 'PUBLISH'")
          .doesNotContain("local PUBLISH = 'SPUBLISH'")
          .endsWith("return {recorded, reply}\n");
      assertThat(twin.sha())
          .as(script.name())
          .isEqualTo(Script.sha1(twin.body()))
          .isNotEqualTo(script.sha())
          .isNotEqualTo(script.sharded().sha());
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
