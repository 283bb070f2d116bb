package dev.warden.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's root: the environment variable {@code WARDEN_DOCS_ROOT} if set (to check another
 * checkout's documentation), else the first directory upwards from the working directory with
 * mkdocs.yml.
 */
final class Repository {
  private Repository() {}

  static Path root() {
    String chosen = System.getenv("WARDEN_DOCS_ROOT");
    if (chosen != null && !chosen.isBlank()) {
      return Path.of(chosen).toAbsolutePath();
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("mkdocs.yml"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new AssertionError(
        "no mkdocs.yml beside a pom.xml above " + Path.of("").toAbsolutePath());
  }
}
