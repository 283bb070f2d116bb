package dev.warden.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts the testkit's server processes one way: in their own directory, stdout and stderr appended
 * to a log file, tracked by the {@link Reaper} so that none outlives the JVM.
 */
final class Processes {
  private Processes() {}

  /**
   * Starts {@code command} in {@code directory}, its output appended to {@code log}.
   *
   * @param install how to install the executable, for the error message, e.g. {@code apt-get
   *     install redis-server}
   * @throws IllegalStateException if the executable cannot be started
   */
  static Process launch(List<String> command, Path directory, Path log, String install) {
    try {
      Process started =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      Reaper.track(started);
      return started;
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start " + command.get(0) + " (install it, e.g. " + install + ")", e);
    }
  }
}
