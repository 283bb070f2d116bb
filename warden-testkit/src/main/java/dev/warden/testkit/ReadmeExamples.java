package dev.warden.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps documentation examples true: a code block of a README is asserted to be, line for line, a
 * marked region of a test's source file, which the build compiles and the test runs. In the README,
 * the block follows a line {@code <!-- example: NAME -->}; in the source file, the region lies
 * between the lines {@code // README example NAME: begin} and {@code // README example NAME: end}.
 * Indentation common to the region's lines is removed; trailing spaces are ignored.
 *
 * <pre>{@code
 * // README example leadership: begin
 * Leadership leadership = warden.leadership("scheduler");
 * // README example leadership: end
 *
 * ReadmeExamples.assertShown("leadership", Path.of("src/test/java/.../LeadershipIT.java"));
 * }</pre>
 *
 * <p>Made for Warden's own build; any project may use it the same way.
 *
 * @since 0.2
 */
public final class ReadmeExamples {
  private ReadmeExamples() {}

  /**
   * Asserts that the README (the first {@code README.md} found from the working directory upwards
   * beside a {@code pom.xml} with modules) shows the example exactly as the source file has it.
   *
   * @param name the example's name
   * @param source the source file holding the example's region
   * @throws AssertionError if the README or the region lacks the example, or they differ
   */
  public static void assertShown(String name, Path source) {
    assertShown(name, findReadme(), source);
  }

  /**
   * Asserts that {@code readme} shows the example exactly as the source file has it.
   *
   * @param name the example's name
   * @param readme the Markdown file
   * @param source the source file holding the example's region
   * @throws AssertionError if either lacks the example, or they differ
   */
  public static void assertShown(String name, Path readme, Path source) {
    List<String> shown = block(readme, name);
    List<String> compiled = region(source, name);
    if (!shown.equals(compiled)) {
      throw new AssertionError(
          "the example '"
              + name
              + "' of "
              + readme
              + " differs from the code of "
              + source
              + " (update the README from the code)\n--- README:\n"
              + String.join("\n", shown)
              + "\n--- code:\n"
              + String.join("\n", compiled));
    }
  }

  /**
   * Returns the lines of the fenced code block that follows {@code <!-- example: NAME -->}.
   *
   * @param readme the Markdown file
   * @param name the example's name
   * @return its lines, trailing spaces removed
   * @throws AssertionError if there is no such block
   */
  public static List<String> block(Path readme, String name) {
    List<String> lines = read(readme);
    int marker = lines.indexOf("<!-- example: " + name + " -->");
    if (marker < 0 || marker + 1 >= lines.size() || !lines.get(marker + 1).startsWith("```")) {
      throw new AssertionError(
          readme + " has no code block after <!-- example: " + name + " --> (a line of its own)");
    }
    List<String> block = new ArrayList<>();
    for (int i = marker + 2; i < lines.size(); i++) {
      if (lines.get(i).startsWith("```")) {
        return block;
      }
      block.add(lines.get(i).stripTrailing());
    }
    throw new AssertionError(readme + ": the code block of '" + name + "' is not closed");
  }

  /**
   * Returns the lines between {@code // README example NAME: begin} and {@code ... end}, without
   * the indentation they all share.
   *
   * @param source the source file
   * @param name the example's name
   * @return its lines, dedented, trailing spaces removed
   * @throws AssertionError if there is no such region
   */
  public static List<String> region(Path source, String name) {
    List<String> lines = read(source);
    int begin = -1;
    int end = -1;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.equals("// README example " + name + ": begin")) {
        begin = i;
      } else if (line.equals("// README example " + name + ": end") && begin >= 0) {
        end = i;
        break;
      }
    }
    if (begin < 0 || end < 0) {
      throw new AssertionError(source + " has no region '// README example " + name + ": begin'");
    }
    List<String> region = lines.subList(begin + 1, end);
    int indent = Integer.MAX_VALUE;
    for (String line : region) {
      if (!line.isBlank()) {
        indent = Math.min(indent, line.length() - line.stripLeading().length());
      }
    }
    List<String> dedented = new ArrayList<>();
    for (String line : region) {
      dedented.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
    }
    return dedented;
  }

  /** The project's README: upwards from the working directory, beside a multi-module pom. */
  static Path findReadme() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path readme = dir.resolve("README.md");
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(readme)
          && Files.isRegularFile(pom)
          && String.join("\n", read(pom)).contains("<modules>")) {
        return readme;
      }
    }
    throw new AssertionError("no README.md beside a multi-module pom.xml above " + Path.of(""));
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
