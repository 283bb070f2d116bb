package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocExamplesTest {
  @TempDir Path dir;

  private Path write(String name, String... lines) throws IOException {
    return Files.write(dir.resolve(name), java.util.List.of(lines), StandardCharsets.UTF_8);
  }

  @Test
  void aBlockEqualToItsRegionIsShownWhicheverMarkTheRegionUses() throws IOException {
    Path doc = write("guide.md", "# Guide", "<!-- example: first -->", "```java", "a();  ", "```");
    Path plain =
        write(
            "A.java",
            "class A {",
            "  // example first: begin",
            "  a();",
            "  // example first: end",
            "}");
    Path readme =
        write(
            "B.java",
            "    // README example first: begin",
            "    a();",
            "    // README example first: end");

    DocExamples.assertShown(doc, "first", plain);
    DocExamples.assertShown(doc, "first", readme);
    ReadmeExamples.assertShown("first", doc, plain);
  }

  @Test
  void aBlockThatDriftedFromItsRegionFailsNamingBothFiles() throws IOException {
    Path doc = write("guide.md", "<!-- example: first -->", "```java", "a(1);", "```");
    Path source = write("A.java", "// example first: begin", "a(2);", "// example first: end");

    assertThatThrownBy(() -> DocExamples.assertShown(doc, "first", source))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the example 'first' of " + doc)
        .hasMessageContaining("differs from the code of " + source)
        .hasMessageContaining("--- document:\na(1);\n--- code:\na(2);");
  }

  @Test
  void aMissingBlockOrRegionIsNamed() throws IOException {
    Path doc = write("guide.md", "<!-- example: first -->", "", "```java", "```");
    Path source = write("A.java", "// example other: begin", "// example other: end");

    assertThatThrownBy(() -> DocExamples.block(doc, "first"))
        .hasMessageContaining(doc + " has no code block after <!-- example: first -->");
    assertThatThrownBy(() -> DocExamples.region(source, "first"))
        .hasMessageContaining(source + " has no region '// example first: begin'");
  }

  @Test
  void onlyBlocksOfTheLanguageWithNeitherMarkAreUnmarked() throws IOException {
    Path doc =
        write(
            "guide.md",
            "<!-- example: first -->",
            "```java",
            "a();",
            "```",
            "<!-- not compiled: a fragment of a user's class -->",
            "```java",
            "b();",
            "```",
            "<!-- not compiled:  -->",
            "```java",
            "c();",
            "```",
            "```xml",
            "<d/>",
            "```",
            "",
            "```Java",
            "e();",
            "```");

    assertThat(DocExamples.unmarkedBlocks(doc, "java")).containsExactly(doc + ":10", doc + ":17");
    assertThat(DocExamples.unmarkedBlocks(doc, "kotlin")).isEmpty();
    assertThat(DocExamples.exampleNames(doc)).containsExactly("first");
  }
}
