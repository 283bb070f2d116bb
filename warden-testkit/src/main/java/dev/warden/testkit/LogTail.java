package dev.warden.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads the last lines of a log file for error messages. Stateless and thread-safe. */
final class LogTail {
  static final int LINES = 25;

  private LogTail() {}

  /** Returns the last {@link #LINES} lines of the file, or a note saying why there are none. */
  static String of(Path file) {
    List<String> lines;
    try {
      // ISO-8859-1 decodes any byte, so a stray non-UTF-8 byte cannot hide the rest of the log.
      lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
    if (lines.isEmpty()) {
      return "(" + file + " is empty)";
    }
    List<String> tail = lines.subList(Math.max(0, lines.size() - LINES), lines.size());
    return "last " + tail.size() + " lines of " + file + ":\n  " + String.join("\n  ", tail);
  }
}
