package dev.warden.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p>Made for Warden's own build; any project may use it the same way. {@link DocExamples} does the
 * same for any document, and finds the blocks that are neither examples nor marked as not compiled.
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
    DocExamples.assertShown(readme, name, source);
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
    return DocExamples.block(readme, name);
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
    return DocExamples.region(source, name);
  }

  /** The project's README: upwards from the working directory, beside a multi-module pom. */
  static Path findReadme() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path readme = dir.resolve("README.md");
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(readme)
          && Files.isRegularFile(pom)
          && String.join("\n", DocExamples.read(pom)).contains("<modules>")) {
        return readme;
      }
    }
    throw new AssertionError("no README.md beside a multi-module pom.xml above " + Path.of(""));
  }
}
