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
 * @param roundTrip the round trip to put between the clients and Redis; empty for none
 * @param network how to put it there: {@code auto}, {@code netns} or {@code proxy}
 */
record Settings(
    Optional<String> uri,
    Optional<String> clusterUri,
    Set<String> only,
    boolean quick,
    int seconds,
    Path out,
    Optional<Duration> roundTrip,
    String network) {
  static final int MAX_SECONDS = 600;

  /** The round trip {@code --round-trip} puts between clients and Redis when given no value. */
  static final Duration DEFAULT_ROUND_TRIP = Duration.ofNanos(500_000);

  /** The ways to put a round trip between clients and Redis ({@code --network}). */
  static final List<String> NETWORKS = List.of("auto", "netns", "proxy");

  static final String USAGE =
      """
      Usage: warden bench [options]

      Measures Warden against Redisson on the same Redis, alternating, and writes
      results.json, summary.md and one SVG chart per workload.

        --uri URI      Redis to use (default: start a throwaway redis-server)
        --cluster-uri URI,URI
                       seeds of the Redis Cluster W10 uses (default: start a throwaway
                       3 masters + 3 replicas)
        --only W1,W3   run only these workloads (W1..W10, W7F; W7, W7F, W8, W9 and
                       W10's W7 point run worker JVMs: e.g. --only W8,W9,W10)
        --quick        a smoke run: one 1 s window per point and library, fewer churn
                       cycles, shorter JIT warm-ups (about 5 minutes for everything;
                       the worker JVMs start and warm up for every run)
        --seconds N    measured seconds per point and library, 1-%d (default 10, in two
                       rounds of 5 s run Warden, Redisson, Redisson, Warden; --quick: 1)
        --out DIR      where results go (default bench-results/)
        --round-trip[=D]
                       put a round trip of D (default 0.5ms; e.g. 250us, 1ms, 0) between
                       every client (this JVM's and the worker JVMs') and the throwaway
                       servers: the clients run in a network namespace of the run's own,
                       Redis behind a veth pair delayed by tc netem (needs root, iproute2
                       and the kernel's sch_netem), else behind FaultProxy.delay in a
                       separate JVM; the report says which
        --network N    auto (default: netns if it works, else proxy), netns or proxy
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

  /**
   * Returns the command line of a measuring JVM that runs these settings on servers started
   * elsewhere (in a namespace: see {@code Main}): the same workloads, mode, seconds and output.
   */
  List<String> childArgs(String uri, String clusterSeeds) {
    List<String> args = new ArrayList<>(List.of("--uri", uri));
    if (clusterSeeds != null) {
      args.addAll(List.of("--cluster-uri", clusterSeeds));
    }
    if (!only.isEmpty()) {
      args.addAll(List.of("--only", String.join(",", only)));
    }
    if (quick) {
      args.add("--quick");
    }
    args.addAll(
        List.of(
            "--seconds",
            Integer.toString(seconds),
            "--out",
            out.toAbsolutePath().normalize().toString()));
    return args;
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
    Optional<Duration> roundTrip = Optional.empty();
    String network = "auto";
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
        case "--round-trip" -> {
          boolean given = equals > 0 || (!rest.isEmpty() && !rest.get(0).startsWith("-"));
          roundTrip =
              Optional.of(
                  given ? duration(name, value(name, arg, equals, rest)) : DEFAULT_ROUND_TRIP);
        }
        case "--network" -> {
          network = value(name, arg, equals, rest).strip().toLowerCase(Locale.ROOT);
          if (!NETWORKS.contains(network)) {
            throw new IllegalArgumentException(
                "--network must be one of " + String.join(", ", NETWORKS) + ": " + network);
          }
        }
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
    if (roundTrip.isPresent() && (uri.isPresent() || clusterUri.isPresent())) {
      throw new IllegalArgumentException(
          "--round-trip puts the throwaway servers behind a delay: it cannot go with "
              + (uri.isPresent() ? "--uri" : "--cluster-uri"));
    }
    if (roundTrip.isEmpty() && !network.equals("auto")) {
      throw new IllegalArgumentException("--network " + network + " needs --round-trip");
    }
    return Optional.of(
        new Settings(
            uri,
            clusterUri,
            only,
            quick,
            seconds != null ? seconds : quick ? 1 : 10,
            out,
            roundTrip,
            network));
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

  /**
   * Reads a round trip: a number with {@code us} or {@code ms} (a bare number is milliseconds),
   * from 0 to 1 s.
   */
  static Duration duration(String name, String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    double factor = 1_000_000;
    if (value.endsWith("us")) {
      factor = 1_000;
      value = value.substring(0, value.length() - 2);
    } else if (value.endsWith("ms")) {
      value = value.substring(0, value.length() - 2);
    }
    try {
      double nanos = Double.parseDouble(value.strip()) * factor;
      if (nanos >= 0 && nanos <= 1e9) {
        return Duration.ofNanos(Math.round(nanos));
      }
    } catch (NumberFormatException notANumber) {
      // reported below
    }
    throw new IllegalArgumentException(
        name + " must be a duration from 0 to 1000ms, e.g. 0.5ms or 250us: " + text);
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
