package dev.warden.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Keeps the code blocks of any Markdown document true: a block is asserted to be, line for line, a
 * marked region of a source file that the build compiles and a test runs.
 *
 * <p>In the document, the block follows a line {@code <!-- example: NAME -->}. In the source file,
 * the region lies between the lines {@code // example NAME: begin} and {@code // example NAME: end}
 * ({@code // README example NAME: begin} and {@code ... end} are read the same way). Indentation
 * common to the region's lines is removed; trailing spaces are ignored. A block that is
 * deliberately not compiled (a fragment, a sketch of a user's class) follows a line {@code <!-- not
 * compiled: REASON -->} instead; {@link #unmarkedBlocks} finds the blocks that have neither.
 *
 * <pre>{@code
 * // example leadership: begin
 * Leadership leadership = warden.leadership("scheduler");
 * // example leadership: end
 *
 * DocExamples.assertShown(
 *     Path.of("../docs/locks.md"), "leadership", Path.of("src/test/java/.../LeadershipIT.java"));
 * }</pre>
 *
 * <p>Made for Warden's own build; any project may use it the same way. {@link ReadmeExamples} is
 * the same for the project's README.
 *
 * @since 0.2
 */
public final class DocExamples {
  private static final String EXAMPLE = "<!-- example: ";
  private static final String NOT_COMPILED = "<!-- not compiled: ";
  private static final String END = " -->";

  private DocExamples() {}

  /**
   * Asserts that {@code document} shows the example exactly as the source file has it.
   *
   * @param document the Markdown file
   * @param name the example's name
   * @param source the source file holding the example's region
   * @throws AssertionError if either lacks the example, or they differ
   */
  public static void assertShown(Path document, String name, Path source) {
    List<String> shown = block(document, name);
    List<String> compiled = region(source, name);
    if (!shown.equals(compiled)) {
      throw new AssertionError(
          "the example '"
              + name
              + "' of "
              + document
              + " differs from the code of "
              + source
              + " (update the document from the code)\n--- document:\n"
              + String.join("\n", shown)
              + "\n--- code:\n"
              + String.join("\n", compiled));
    }
  }

  /**
   * Returns the lines of the fenced code block that follows {@code <!-- example: NAME -->}.
   *
   * @param document the Markdown file
   * @param name the example's name
   * @return its lines, trailing spaces removed
   * @throws AssertionError if there is no such block
   */
  public static List<String> block(Path document, String name) {
    List<String> lines = read(document);
    int marker = lines.indexOf(EXAMPLE + name + END);
    if (marker < 0 || marker + 1 >= lines.size() || !isFence(lines.get(marker + 1))) {
      throw new AssertionError(
          document
              + " has no code block after "
              + EXAMPLE
              + name
              + END
              + " (a line of its own, right before the block)");
    }
    List<String> block = new ArrayList<>();
    for (int i = marker + 2; i < lines.size(); i++) {
      if (isFence(lines.get(i))) {
        return block;
      }
      block.add(lines.get(i).stripTrailing());
    }
    throw new AssertionError(document + ": the code block of '" + name + "' is not closed");
  }

  /**
   * Returns the lines between {@code // example NAME: begin} and {@code // example NAME: end} (or
   * the {@code // README example} form of both), without the indentation they all share.
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
      if (isRegionMark(line, name, "begin")) {
        begin = i;
      } else if (isRegionMark(line, name, "end") && begin >= 0) {
        end = i;
        break;
      }
    }
    if (begin < 0 || end < 0) {
      throw new AssertionError(source + " has no region '// example " + name + ": begin' ... end");
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

  /**
   * Returns the names of the examples {@code document} marks ({@code <!-- example: NAME -->}), in
   * document order.
   *
   * @param document the Markdown file
   * @return the names, each once per marker
   */
  public static List<String> exampleNames(Path document) {
    List<String> names = new ArrayList<>();
    for (String line : read(document)) {
      if (line.startsWith(EXAMPLE) && line.endsWith(END)) {
        names.add(line.substring(EXAMPLE.length(), line.length() - END.length()).strip());
      }
    }
    return names;
  }

  /**
   * Returns the fenced code blocks of {@code language} (the word after the opening fence, such as
   * {@code java}) that follow neither {@code <!-- example: NAME -->} nor {@code <!-- not compiled:
   * REASON -->} with a reason, each as {@code "FILE:LINE"} of its opening fence.
   *
   * @param document the Markdown file
   * @param language the fence's language, compared without case
   * @return the unmarked blocks, in document order; empty if every block is marked
   */
  public static List<String> unmarkedBlocks(Path document, String language) {
    List<String> lines = read(document);
    List<String> unmarked = new ArrayList<>();
    boolean inBlock = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!isFence(line)) {
        continue;
      }
      if (inBlock) {
        inBlock = false;
        continue;
      }
      inBlock = true;
      String fenceLanguage = line.strip().substring(3).strip().toLowerCase(Locale.ROOT);
      if (fenceLanguage.equals(language.toLowerCase(Locale.ROOT))
          && !(i > 0 && isMarker(lines.get(i - 1)))) {
        unmarked.add(document + ":" + (i + 1));
      }
    }
    return unmarked;
  }

  private static boolean isMarker(String line) {
    if (!line.endsWith(END)) {
      return false;
    }
    if (line.startsWith(EXAMPLE)) {
      return true;
    }
    return line.startsWith(NOT_COMPILED)
        && !line.substring(NOT_COMPILED.length(), line.length() - END.length()).isBlank();
  }

  private static boolean isFence(String line) {
    return line.stripLeading().startsWith("```");
  }

  private static boolean isRegionMark(String line, String name, String which) {
    String mark = "example " + name + ": " + which;
    return line.equals("// " + mark) || line.equals("// README " + mark);
  }

  static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
