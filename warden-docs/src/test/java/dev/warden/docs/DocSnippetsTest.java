package dev.warden.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.DocExamples;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No code snippet of the documentation drifts from the code: every fenced Java and Kotlin block of
 * README.md, CONTRIBUTING.md, ARCHITECTURE.md and docs/ is either an example ({@code <!-- example:
 * NAME -->}), the text of exactly one region {@code // example NAME: begin ... end} of a source
 * file that the build compiles and a test runs, or says why it is not compiled ({@code <!-- not
 * compiled: REASON -->}). And the README stays a front page: under 15 KB, its guarantee table the
 * guide's.
 */
class DocSnippetsTest {
  private static final List<String> LANGUAGES = List.of("java", "kotlin");

  private static final long MAX_README_BYTES = 15 * 1024;
  private static final String GUARANTEES = "## Which lock for which guarantee";
  private static final Pattern TEST_NAME =
      Pattern.compile(
          "`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:IT|Test))(?:\\.([a-z][A-Za-z0-9]*))?`");

  private final Path root = Repository.root();

  @Test
  void everyJavaAndKotlinBlockIsAnExampleOrSaysWhyItIsNotCompiled() throws IOException {
    List<String> unmarked = new ArrayList<>();
    for (Path document : documents()) {
      for (String language : LANGUAGES) {
        unmarked.addAll(DocExamples.unmarkedBlocks(document, language));
      }
    }

    assertThat(unmarked)
        .as(
            "fenced blocks with neither <!-- example: NAME --> nor <!-- not compiled: REASON -->"
                + " on the line before them:\n  %s",
            String.join("\n  ", unmarked))
        .isEmpty();
  }

  /** The README is the front page (issue 24): the rest lives in the guides under docs/. */
  @Test
  void theReadmeStaysAFrontPage() throws IOException {
    long size = Files.size(root.resolve("README.md"));
    assertThat(size)
        .as("README.md is %s bytes; move sections into the guides under docs/", size)
        .isLessThan(MAX_README_BYTES);
  }

  /** The README's short "Which lock for which guarantee" is the guide's table, not a copy. */
  @Test
  void theReadmesGuaranteeTableIsTheGuides() throws IOException {
    List<String> readme = table(root.resolve("README.md"), GUARANTEES);
    List<String> guide = table(root.resolve("docs/guarantees.md"), GUARANTEES);

    assertThat(readme).as("the table under '%s' in README.md", GUARANTEES).isNotEmpty();
    assertThat(readme)
        .as("README.md's table under '%s' differs from docs/guarantees.md's", GUARANTEES)
        .isEqualTo(guide);
  }

  @Test
  void everyExampleIsTheTextOfExactlyOneRegionOfTheSources() throws IOException {
    List<Path> sources = sources();
    List<String> problems = new ArrayList<>();
    int examples = 0;
    for (Path document : documents()) {
      for (String name : DocExamples.exampleNames(document)) {
        examples++;
        List<Path> holders = new ArrayList<>();
        for (Path source : sources) {
          if (hasRegion(source, name)) {
            holders.add(source);
          }
        }
        if (holders.size() != 1) {
          problems.add(
              root.relativize(document)
                  + ": the example '"
                  + name
                  + "' needs exactly one region '// example "
                  + name
                  + ": begin' in the sources, found "
                  + holders.stream().map(root::relativize).toList());
          continue;
        }
        try {
          DocExamples.assertShown(document, name, holders.get(0));
        } catch (AssertionError e) {
          problems.add(e.getMessage());
        }
      }
    }

    assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
    assertThat(examples).as("examples found").isPositive();
  }

  /**
   * A promise backed by a test names it in backticks ({@code `FencingIT`}, {@code
   * `CredentialsIT.aMethod`}): every such name must be a test class of the sources (and the method
   * one of its methods), so a renamed or deleted test cannot leave a promise backed by nothing.
   */
  @Test
  void everyTestTheDocumentsNameExists() throws IOException {
    Map<String, Path> tests = new HashMap<>();
    for (Path source : sources()) {
      String file = source.getFileName().toString();
      String name = file.substring(0, file.lastIndexOf('.'));
      if (name.endsWith("IT") || name.endsWith("Test")) {
        tests.put(name, source);
      }
    }
    List<String> missing = new ArrayList<>();
    int named = 0;
    for (Path document : documents()) {
      if (document.endsWith("CONTRIBUTING.md")) {
        continue; // it shows how to name tests (FooIT, ThingContractIT)
      }
      Matcher m = TEST_NAME.matcher(Files.readString(document, StandardCharsets.UTF_8));
      while (m.find()) {
        named++;
        Path test = tests.get(m.group(1));
        String method = m.group(2);
        if (test == null) {
          missing.add(root.relativize(document) + " names " + m.group(1) + ": no such test class");
        } else if (method != null
            && !Files.readString(test, StandardCharsets.UTF_8).contains(" " + method + "(")) {
          missing.add(
              root.relativize(document) + " names " + m.group() + ": no such method in " + test);
        }
      }
    }

    assertThat(missing).as(String.join("\n", missing)).isEmpty();
    assertThat(named).as("tests named by the documents").isGreaterThan(20);
  }

  /** README.md, CONTRIBUTING.md, ARCHITECTURE.md and every Markdown file under docs/. */
  private List<Path> documents() throws IOException {
    List<Path> documents = new ArrayList<>();
    for (String name : List.of("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md")) {
      if (Files.isRegularFile(root.resolve(name))) {
        documents.add(root.resolve(name));
      }
    }
    try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
      files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  /** Every Java and Kotlin file under a src/ directory of the repository (not under target/). */
  private List<Path> sources() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(file -> file.toString().endsWith(".java") || file.toString().endsWith(".kt"))
          .filter(
              file -> {
                Path relative = root.relativize(file);
                boolean inSrc = false;
                for (Path part : relative) {
                  String name = part.toString();
                  if (name.equals("target") || name.startsWith(".")) {
                    return false;
                  }
                  inSrc |= name.equals("src");
                }
                return inSrc;
              })
          .sorted()
          .toList();
    }
  }

  /** The first table's rows after the heading line {@code heading}; empty if there is none. */
  private static List<String> table(Path document, String heading) throws IOException {
    List<String> lines = Files.readAllLines(document, StandardCharsets.UTF_8);
    int start = lines.indexOf(heading);
    List<String> rows = new ArrayList<>();
    for (int i = start + 1; start >= 0 && i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("|")) {
        rows.add(line);
      } else if (!rows.isEmpty() || line.startsWith("#")) {
        break;
      }
    }
    return rows;
  }

  private static boolean hasRegion(Path source, String name) {
    try {
      for (String line : Files.readAllLines(source, StandardCharsets.UTF_8)) {
        String mark = line.strip();
        if (mark.equals("// example " + name + ": begin")
            || mark.equals("// README example " + name + ": begin")) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new AssertionError("cannot read " + source, e);
    }
  }
}
