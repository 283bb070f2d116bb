package dev.warden.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The command line of {@code warden bench}, parsed: where Redis is, which workloads, how long the
 * windows are, where the results go. Immutable.
 *
 * @param uri the Redis to use; empty to start a throwaway {@code redis-server}
 * @param clusterUri seed URIs of the Redis Cluster W10 uses, comma-separated; empty to start a
 *     throwaway one
 * @param only the workload ids to run (upper case), in the order given; empty for all
 * @param quick whether this is a smoke run: one short round per library, fewer churn cycles
 * @param seconds the measured time of each point and library, split over {@link #rounds()}
 * @param out the directory for results.json, summary.md and the charts
 */
record Settings(
    Optional<String> uri,
    Optional<String> clusterUri,
    Set<String> only,
    boolean quick,
    int seconds,
    Path out) {
  static final int MAX_SECONDS = 600;

  static final String USAGE =
      """
      Usage: warden bench [options]

      Measures Warden against Redisson on the same Redis, alternating, and writes
      results.json, summary.md and one SVG chart per workload.

        --uri URI      Redis to use (default: start a throwaway redis-server)
        --cluster-uri URI,URI
                       seeds of the Redis Cluster W10 uses (default: start a throwaway
                       3 masters + 3 replicas)
        --only W1,W3   run only these workloads (W1..W7, W7F; W7 and W7F run P worker
                       JVMs x T threads on one lock: --only W7,W7F)
        --quick        a smoke run: one 1 s window per point and library, fewer churn
                       cycles (about 2 minutes, and about 5 more for W7 and W7F, whose
                       worker JVMs start and warm up for every run)
        --seconds N    measured seconds per point and library, 1-%d (default 10, in two
                       rounds of 5 s run Warden, Redisson, Redisson, Warden; --quick: 1)
        --out DIR      where results go (default bench-results/)
        -h, --help     print this text
      """
          .formatted(MAX_SECONDS);

  Settings {
    only = Set.copyOf(only);
  }

  /**
   * Returns how many rounds each point is measured in per library: 2 (in the order A, B, B, A, so
   * that drift on a shared machine weighs on both alike), or 1 for a quick run.
   */
  int rounds() {
    return quick ? 1 : 2;
  }

  /** Returns the measured window of one round: the seconds split over the rounds, at least 1 s. */
  Duration window() {
    return Duration.ofMillis(Math.max(1_000, seconds * 1_000L / rounds()));
  }

  /**
   * Returns the warm-up before each window, with fresh clients: 40 % of the window, from 1 s to 5 s
   * (the JVM is warm after the first rounds; connections, scripts and pools are not).
   */
  Duration warmUp() {
    return Duration.ofMillis(Math.max(1_000, Math.min(5_000, window().toMillis() * 2 / 5)));
  }

  /** Returns whether the workload with this id is to run. */
  boolean runs(String workloadId) {
    return only.isEmpty() || only.contains(workloadId);
  }

  /**
   * Parses the arguments after {@code bench}; {@code defaultOut} is used without {@code --out}.
   * Returns empty when help was asked for.
   *
   * @throws IllegalArgumentException naming the option and value that are wrong
   */
  static Optional<Settings> parse(List<String> args, Path defaultOut) {
    Optional<String> uri = Optional.empty();
    Optional<String> clusterUri = Optional.empty();
    Set<String> only = new LinkedHashSet<>();
    boolean quick = false;
    Integer seconds = null;
    Path out = defaultOut;
    List<String> rest = new ArrayList<>(args);
    while (!rest.isEmpty()) {
      String arg = rest.remove(0);
      int equals = arg.indexOf('=');
      String name = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
      switch (name) {
        case "-h", "--help" -> {
          return Optional.empty();
        }
        case "--quick" -> quick = true;
        case "--uri" -> uri = Optional.of(value(name, arg, equals, rest));
        case "--cluster-uri" -> clusterUri = Optional.of(value(name, arg, equals, rest));
        case "--out" -> out = Path.of(value(name, arg, equals, rest));
        case "--seconds" -> seconds = wholeNumber(name, value(name, arg, equals, rest));
        case "--only" -> {
          for (String id : value(name, arg, equals, rest).split(",", -1)) {
            String workload = id.strip().toUpperCase(Locale.ROOT);
            if (Workloads.ALL.stream().noneMatch(w -> w.id().equals(workload))) {
              throw new IllegalArgumentException(
                  "--only takes workloads W1 to W10 and W7F: " + id.strip());
            }
            only.add(workload);
          }
        }
        default -> throw new IllegalArgumentException("unknown option: " + arg);
      }
    }
    return Optional.of(
        new Settings(
            uri, clusterUri, only, quick, seconds != null ? seconds : quick ? 1 : 10, out));
  }

  private static String value(String name, String arg, int equals, List<String> rest) {
    String value;
    if (arg.startsWith("--") && equals > 0) {
      value = arg.substring(equals + 1);
    } else if (!rest.isEmpty() && !rest.get(0).startsWith("--")) {
      value = rest.remove(0);
    } else {
      throw new IllegalArgumentException(name + " needs a value");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
    return value;
  }

  private static int wholeNumber(String name, String text) {
    try {
      int value = Integer.parseInt(text.strip());
      if (value >= 1 && value <= MAX_SECONDS) {
        return value;
      }
    } catch (NumberFormatException notANumber) {
      // reported below
    }
    throw new IllegalArgumentException(
        name + " must be a whole number from 1 to " + MAX_SECONDS + ": " + text);
  }
}
