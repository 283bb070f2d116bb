package dev.warden.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server binary that {@link RedisServer}, {@link RedisSentinels} and {@link RedisCluster}
 * start, chosen by the system property {@value #PROPERTY}: {@code redis} (the default: {@code
 * redis-server}), {@code valkey} ({@code valkey-server}), or any other binary name looked up on the
 * {@code PATH} or a path, e.g. {@code -Dwarden.server=/opt/redis-8.2/bin/redis-server}. Sentinels
 * run the same binary with {@code --sentinel}; the readiness probe and cluster creation use the
 * {@code redis-cli} or {@code valkey-cli} found beside it (else on the {@code PATH}).
 *
 * <pre>{@code
 * mvn verify -pl warden-it -am -Dtest='ReentrantLockContractIT' -Dwarden.server=valkey
 * }</pre>
 *
 * <p>The first server a JVM starts prints which binary runs, with its product and version, to
 * standard error: {@code "warden-testkit: servers are Valkey 8.0.1 (/usr/bin/valkey-server,
 * -Dwarden.server=valkey)"}. Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class ServerBinary {
  /** The system property that chooses the server: {@code redis}, {@code valkey}, a name or path. */
  public static final String PROPERTY = "warden.server";

  private static final Pattern VERSION = Pattern.compile("^(\\S+) server v=(\\S+)");
  private static final long VERSION_TIMEOUT_SECONDS = 10;

  private final String choice;
  private final Path server;
  private final Path cli;
  private final String product;
  private final String version;

  private ServerBinary(String choice, Path server, Path cli, String product, String version) {
    this.choice = choice;
    this.server = server;
    this.cli = cli;
    this.product = product;
    this.version = version;
  }

  /**
   * Returns the binary the system property {@value #PROPERTY} names (read once per JVM), printing
   * which it is on first use.
   *
   * @throws IllegalStateException if that binary, or a {@code redis-cli}/{@code valkey-cli}, cannot
   *     be found, or it does not say which server and version it is
   */
  public static ServerBinary current() {
    return Current.BINARY;
  }

  /**
   * Resolves a choice as the system property takes it: {@code "redis"}, {@code "valkey"}, a binary
   * name on the {@code PATH} or a path.
   *
   * @throws IllegalArgumentException if {@code choice} is null or blank
   * @throws IllegalStateException if the binary or a CLI cannot be found, or does not say which
   *     server and version it is
   */
  public static ServerBinary of(String choice) {
    if (choice == null || choice.isBlank()) {
      throw new IllegalArgumentException(PROPERTY + " must name a server: '" + choice + "'");
    }
    String name = choice.strip();
    String executable =
        switch (name.toLowerCase(Locale.ROOT)) {
          case "redis" -> "redis-server";
          case "valkey" -> "valkey-server";
          default -> name;
        };
    Path server = find(executable, null);
    if (server == null) {
      throw new IllegalStateException(
          executable
              + " (-D"
              + PROPERTY
              + "="
              + name
              + ") is not on the PATH ("
              + System.getenv("PATH")
              + ") nor a path to an executable: install it, e.g. with "
              + installHint(executable)
              + ", or choose another server with -D"
              + PROPERTY);
    }
    boolean valkey = server.getFileName().toString().startsWith("valkey");
    List<String> clis =
        valkey ? List.of("valkey-cli", "redis-cli") : List.of("redis-cli", "valkey-cli");
    Path cli = null;
    for (String candidate : clis) {
      cli = find(candidate, server.getParent());
      if (cli != null) {
        break;
      }
    }
    if (cli == null) {
      throw new IllegalStateException(
          "neither redis-cli nor valkey-cli is beside "
              + server
              + " or on the PATH: install one, e.g. with "
              + installHint(executable));
    }
    String[] identity = identify(server);
    return new ServerBinary(name, server, cli, identity[0], identity[1]);
  }

  /** Returns the server binary, an absolute path. */
  public Path server() {
    return server;
  }

  /** Returns the command-line client used to probe and to create clusters, an absolute path. */
  public Path cli() {
    return cli;
  }

  /** Returns the product the binary reports, e.g. {@code "Redis"} or {@code "Valkey"}. */
  public String product() {
    return product;
  }

  /** Returns the version the binary reports, e.g. {@code "8.0.1"}. */
  public String version() {
    return version;
  }

  /** Returns whether the binary is Valkey's. */
  public boolean isValkey() {
    return "valkey".equalsIgnoreCase(product);
  }

  /** Returns a description: {@code "Valkey 8.0.1 (/usr/bin/valkey-server)"}. */
  @Override
  public String toString() {
    return product + " " + version + " (" + server + ")";
  }

  /** The command that starts a sentinel with {@code conf}: the server binary in sentinel mode. */
  List<String> sentinelCommand(Path conf) {
    return List.of(server.toString(), conf.toString(), "--sentinel");
  }

  /** How to install the binary, for messages about it. */
  String installHint() {
    return installHint(server.getFileName().toString());
  }

  private static String installHint(String executable) {
    if (executable.startsWith("valkey")) {
      return "scripts/setup.sh (apt-get install -t bookworm-backports valkey-server valkey-tools)"
          + " or `brew install valkey`";
    }
    return "scripts/setup.sh (apt-get install redis-server) or `brew install redis`";
  }

  /** Finds an executable: a path as given, else in {@code first} (if any), else on the PATH. */
  private static Path find(String executable, Path first) {
    if (executable.contains(File.separator)) {
      Path path = Path.of(executable).toAbsolutePath();
      return Files.isRegularFile(path) && Files.isExecutable(path) ? path : null;
    }
    List<String> dirs = new ArrayList<>();
    if (first != null) {
      dirs.add(first.toString());
    }
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator, -1)));
    }
    for (String dir : dirs) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, executable);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate.toAbsolutePath();
        }
      }
    }
    return null;
  }

  /**
   * Runs {@code server --version}: {@code "Valkey server v=8.0.1 sha=..."} gives product, version.
   */
  private static String[] identify(Path server) {
    String output;
    try {
      Process process =
          new ProcessBuilder(server.toString(), "--version").redirectErrorStream(true).start();
      if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(server + " --version did not finish");
      }
      output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + server + " --version", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + server + " --version", e);
    }
    Matcher matcher = VERSION.matcher(output);
    if (!matcher.find()) {
      throw new IllegalStateException(
          server + " --version does not say which server it is: '" + output + "'");
    }
    return new String[] {matcher.group(1), matcher.group(2)};
  }

  /** Resolves the property once, on first use, and says which server the tests run. */
  private static final class Current {
    static final ServerBinary BINARY = announce(of(System.getProperty(PROPERTY, "redis")));

    private static ServerBinary announce(ServerBinary binary) {
      System.err.println(
          "warden-testkit: servers are "
              + binary.product
              + " "
              + binary.version
              + " ("
              + binary.server
              + ", -D"
              + PROPERTY
              + "="
              + binary.choice
              + ")");
      return binary;
    }
  }
}
