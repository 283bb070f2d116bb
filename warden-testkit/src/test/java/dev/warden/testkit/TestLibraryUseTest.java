package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The testkit's JUnit dependency is optional: the command line and the benchmarks load its process
 * launchers with no test library on the class path. Only the JUnit extension may refer to JUnit
 * types, and nothing may refer to the test-scoped libraries.
 */
class TestLibraryUseTest {
  private static final List<String> JUNIT_USERS = List.of("WardenExtension", "StoredResource");

  @Test
  void onlyTheJUnitExtensionRefersToJUnitAndNoClassToOtherTestLibraries() throws Exception {
    List<Path> classes = testkitClasses();
    assertThat(classes)
        .extracting(TestLibraryUseTest::simpleName)
        .contains("StartGate", "RedisServer");
    for (Path type : classes) {
      String constants = new String(Files.readAllBytes(type), StandardCharsets.ISO_8859_1);
      String name = simpleName(type);
      assertThat(constants)
          .as("%s refers to a test library", name)
          .doesNotContain("org/assertj", "org/awaitility", "org/opentest4j");
      if (!JUNIT_USERS.contains(name)) {
        assertThat(constants).as("%s refers to JUnit", name).doesNotContain("org/junit");
      }
    }
  }

  private static List<Path> testkitClasses() throws IOException, URISyntaxException {
    Path directory = Path.of(StartGate.class.getResource("StartGate.class").toURI()).getParent();
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList());
    }
  }

  /** {@code WardenExtension$1.class} -> {@code WardenExtension}. */
  private static String simpleName(Path type) {
    return type.getFileName().toString().replaceFirst("[$.].*", "");
  }
}
