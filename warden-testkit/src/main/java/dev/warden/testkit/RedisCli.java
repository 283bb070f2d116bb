package dev.warden.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command through {@code redis-cli} or {@code valkey-cli} ({@link ServerBinary#cli()}):
 * the readiness probe and the shutdown request must work before, and independently of, the Lettuce
 * admin connection, and Warden writes no Redis protocol code of its own. Stateless and thread-safe.
 */
final class RedisCli {
  private RedisCli() {}

  /**
   * Sends the command and returns redis-cli's raw output, trimmed.
   *
   * @throws IOException if redis-cli cannot reach the server, fails, or takes longer than {@code
   *     timeout}
   */
  static String call(String host, int port, Duration timeout, String... command)
      throws IOException {
    List<String> argv =
        new ArrayList<>(
            List.of(
                ServerBinary.current().cli().toString(), "-h", host, "-p", Integer.toString(port)));
    argv.addAll(List.of(command));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(
            "redis-cli " + String.join(" ", command) + " timed out after " + timeout);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running redis-cli", e);
    }
    String output =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (process.exitValue() != 0 || output.startsWith("Could not connect")) {
      throw new IOException("redis-cli " + String.join(" ", command) + ": " + output);
    }
    return output;
  }
}
