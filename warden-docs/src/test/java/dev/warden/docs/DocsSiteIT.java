package dev.warden.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guides build into the site (mkdocs.yml, strict: a link to a missing page fails the build;
 * every page is in the nav), and a real headless Chromium opens every page of it: each renders its
 * content, and no link points to a missing page or anchor, no image fails to load, no resource is
 * missing.
 */
class DocsSiteIT {

  @Test
  void everyPageOfTheSiteRendersWithNoBrokenLinkImageOrResource() throws Exception {
    Path site = Path.of("target", "site").toAbsolutePath();
    build(Repository.root().resolve("mkdocs.yml"), site);

    List<String> problems = SiteCheck.problems(site);

    assertThat(problems)
        .as(
            "the documentation site (mkdocs.yml, built into %s) has broken pages:\n  %s",
            site, String.join("\n  ", problems))
        .isEmpty();
    assertThat(site.resolve("getting-started/index.html")).isRegularFile();
  }

  /** The check itself: a site with each kind of fault is reported, fault by fault. */
  @Test
  void aBlankPageABrokenLinkAnchorImageAndScriptAreEachReported(@TempDir Path site)
      throws Exception {
    write(site, "pic.svg", "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'></svg>");
    write(site, "good.html", "<html><body><main><h1 id='here'>Good</h1></main></body></html>");
    write(site, "blank.html", "<html><body><p>no main element</p></body></html>");
    write(
        site,
        "index.html",
        "<html><body><main><h1>Home</h1>"
            + "<a href='good.html#here'>fine</a> <a href='https://example.invalid/x'>elsewhere</a>"
            + " <a href='missing.html'>gone</a> <a href='good.html#nowhere'>no anchor</a>"
            + " <img src='pic.svg' alt='fine'> <img src='nothing.png' alt='gone'>"
            + "<script src='gone.js'></script></main></body></html>");

    assertThat(SiteCheck.problems(site))
        .containsExactly(
            "blank.html: no content (no <main>, <article>, role=main or #main-content element with text)",
            "index.html: broken image /nothing.png",
            "index.html: broken link to /missing.html (no such page in the site)",
            "index.html: broken link to /good.html#nowhere (good.html has no id 'nowhere')",
            "index.html: missing resource /gone.js");
  }

  private static void build(Path config, Path site) throws IOException, InterruptedException {
    Path log = Files.createTempFile("warden-docs-mkdocs", ".log");
    try {
      Process mkdocs;
      try {
        mkdocs =
            new ProcessBuilder(
                    "mkdocs",
                    "build",
                    "--strict",
                    "--clean",
                    "--config-file",
                    config.toString(),
                    "--site-dir",
                    site.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
      } catch (IOException e) {
        throw new AssertionError("cannot run mkdocs (scripts/setup.sh installs it): " + e, e);
      }
      boolean done = mkdocs.waitFor(2, TimeUnit.MINUTES);
      if (!done) {
        mkdocs.destroyForcibly().waitFor();
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(done && mkdocs.exitValue() == 0)
          .as("mkdocs build --strict of %s failed:\n%s", config, output)
          .isTrue();
      // a guide left out of the nav is built but found only by a link: MkDocs says so at INFO
      assertThat(output)
          .as("every page of docs/ is in the nav of %s:\n%s", config, output)
          .doesNotContain("not included in the \"nav\"");
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static void write(Path dir, String name, String text) throws IOException {
    Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }
}
