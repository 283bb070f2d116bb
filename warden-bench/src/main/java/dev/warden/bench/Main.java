package dev.warden.bench;

import dev.warden.Warden;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * {@code warden bench}: measures Warden against Redisson on one Redis (a throwaway {@code
 * redis-server} unless {@code --uri} is given), workload by workload, prints a line per run and the
 * final ratios with the targets, and writes results.json, summary.md and SVG charts.
 *
 * <p>Exit status: 0 when the benchmark ran (targets missed included: they are for later), 1 when it
 * could not run or Warden failed a correctness check or a run, 2 for a bad command line.
 */
public final class Main {
  /** Tells the measuring JVM that a parent started in a namespace what its path is. */
  static final String NETWORK_PROPERTY = "warden.bench.network";

  /** Tells that JVM the round trip, in nanoseconds. */
  static final String ROUND_TRIP_PROPERTY = "warden.bench.roundTripNanos";

  /** How long each library runs before a full run's first measurement. */
  private static final Duration JVM_WARM_UP = Duration.ofSeconds(5);

  private final Settings settings;
  private final PrintStream out;

  private Main(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the benchmark and exits with its status. */
  public static void main(String[] args) {
    // Library chatter below WARN (Redisson logs its start at INFO) would break the progress lines.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    int status;
    try {
      status = run(Arrays.asList(args), System.out, System.err);
    } catch (InterruptedException e) {
      System.err.println("warden bench: interrupted");
      status = 1;
    } catch (RuntimeException | IOException e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status); // client threads must not keep the JVM alive
  }

  static int run(List<String> args, PrintStream out, PrintStream err)
      throws InterruptedException, IOException {
    Optional<Settings> parsed;
    try {
      parsed = Settings.parse(args, Path.of("bench-results"));
    } catch (IllegalArgumentException e) {
      err.println("warden bench: " + e.getMessage());
      err.println("Run 'warden bench --help' for usage.");
      return 2;
    }
    if (parsed.isEmpty()) {
      out.print(Settings.USAGE);
      return 0;
    }
    return new Main(parsed.get(), out).execute();
  }

  private int execute() throws InterruptedException, IOException {
    String inherited = System.getProperty(NETWORK_PROPERTY);
    if (inherited != null) { // the measuring JVM in a namespace: the parent made the path
      Duration roundTrip = Duration.ofNanos(Long.getLong(ROUND_TRIP_PROPERTY, 0));
      return measure(Network.inherited(inherited, roundTrip));
    }
    if (settings.roundTrip().isEmpty()) {
      return measure(Network.DIRECT);
    }
    Network network = openNetwork(settings.roundTrip().get());
    out.println("Round trip: " + network.description());
    if (network instanceof Namespace namespace) {
      return measureInside(namespace);
    }
    try (network) {
      return measure(network);
    }
  }

  /**
   * Returns the path with the round trip: a namespace unless {@code --network proxy} or it cannot
   * be had, then the proxies (unless {@code --network netns}, which then fails).
   */
  private Network openNetwork(Duration roundTrip) {
    String why = "";
    if (!settings.network().equals("proxy")) {
      try {
        return Namespace.create(roundTrip);
      } catch (IllegalStateException e) {
        if (settings.network().equals("netns")) {
          throw new BenchException("--network netns: " + e.getMessage(), e);
        }
        why = e.getMessage();
      }
    }
    return new DelayProxies(roundTrip, why);
  }

  /**
   * Starts the servers here, listening on the namespace's pair too, and runs the measuring JVM
   * inside the namespace on them; returns its exit status. The namespace goes when it ends.
   */
  private int measureInside(Namespace namespace) throws InterruptedException, IOException {
    try (namespace;
        Servers servers = Servers.start(settings, namespace)) {
      String cluster = null;
      if (settings.runs("W10")) {
        try {
          cluster = String.join(",", Library.clusterSeeds(servers.cluster().uri()));
        } catch (BenchException e) {
          out.println("W10 will fail: " + e.getMessage());
        }
      }
      String java =
          ProcessHandle.current()
              .info()
              .command()
              .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      List<String> command =
          new ArrayList<>(
              List.of(
                  java,
                  "-D" + NETWORK_PROPERTY + "=" + namespace.description(),
                  "-D" + ROUND_TRIP_PROPERTY + "=" + namespace.roundTrip().toNanos(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  Main.class.getName()));
      command.addAll(settings.childArgs(servers.single().uri(), cluster));
      Process child = new ProcessBuilder(namespace.exec(command)).inheritIO().start();
      try {
        return child.waitFor();
      } finally {
        child.destroy();
      }
    }
  }

  // SystemConsoleNull: only whether to redraw progress; isTerminal() is JDK 22+
  @SuppressWarnings("SystemConsoleNull")
  private int measure(Network network) throws InterruptedException, IOException {
    try (Servers servers = Servers.start(settings, network)) {
      String uri = servers.single().uri();
      Results results = new Results(about(servers));
      out.printf(
          "Warden %s (commit %s, warden-core %s) vs Redisson %s on Redis %s at %s (%s)%n",
          results.about().get("warden_version"),
          results.about().get("git_commit"),
          results.about().get("warden_core_sha256"),
          results.about().get("redisson_version"),
          results.about().get("redis_version"),
          uri,
          servers.single().description());
      Map<Workload, List<Point>> plan = new LinkedHashMap<>();
      for (Workload workload : Workloads.ALL) {
        if (settings.runs(workload.id())) {
          plan.put(workload, workload.points(settings));
        }
      }
      // Before a full run, each library runs W1 at 4 threads and W5 with 1,000 locks unmeasured, so
      // that neither meets a cold JIT in a measured point: taking and holding many locks at once
      // runs code that W1 does not (a quick run is a smoke test and skips it).
      List<Point> jvmWarmUp =
          settings.quick()
              ? List.of()
              : List.of(
                  new W1Uncontended().points(settings).get(1),
                  new W5LeaseKeeper().points(settings).get(0));
      int runs =
          plan.values().stream().flatMap(List::stream).mapToInt(point -> 2 * point.rounds()).sum()
              + 2 * jvmWarmUp.size();
      out.printf(
          "%d runs (%s), about %d min; results go to %s%n",
          runs,
          results.about().get("mode"),
          estimateMinutes(plan),
          settings.out().toAbsolutePath().normalize());
      String runId = Long.toString(System.currentTimeMillis(), 36);
      try (Progress progress = new Progress(out, System.console() != null, runs)) {
        Runner runner =
            new Runner(
                servers,
                progress,
                runId,
                settings.quick() ? Duration.ZERO : Runner.JIT_QUIET_LIMIT);
        for (Point point : jvmWarmUp) {
          runner.warmUpJvm(point, JVM_WARM_UP);
        }
        for (Map.Entry<Workload, List<Point>> entry : plan.entrySet()) {
          runner.run(entry.getKey(), entry.getValue(), results);
        }
      }
      out.println(
          "Ceiling: redis-benchmark EVALSHA of a whole pair's commands, 1, 16 and 64 clients ...");
      results.ceiling(Ceiling.measure(uri, servers.singleStats(), settings.quick()));
      results.about().put("cluster", servers.clusterDescription());
      results.about().put("load_average_at_end", loadAverage());
      List<Targets.Verdict> verdicts = Targets.evaluate(results);
      Report.text(results, verdicts).forEach(out::println);
      List<Path> written = write(results, verdicts);
      out.println();
      out.println(
          "Wrote "
              + written.stream()
                  .map(Path::toString)
                  .reduce((a, b) -> a + ", " + b)
                  .orElse("nothing"));
      return wardenFailed(results) ? 1 : 0;
    }
  }

  /** Writes results.json, summary.md, a chart per workload and targets.svg; returns the files. */
  private List<Path> write(Results results, List<Targets.Verdict> verdicts) throws IOException {
    Path dir = settings.out();
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    List<String> charts = new ArrayList<>();
    for (Results.WorkloadResult workload : results.workloads()) {
      List<SvgChart.Panel> panels = new ArrayList<>();
      for (Metric metric :
          workload.workload().headline().stream().filter(Metric::charted).toList()) {
        List<SvgChart.Bars> bars = new ArrayList<>();
        for (Results.PointResult point : workload.points()) {
          bars.add(
              new SvgChart.Bars(
                  point.point().label(), point.warden(metric.key()), point.redisson(metric.key())));
        }
        panels.add(new SvgChart.Panel(metric, bars));
      }
      String name = workload.workload().id() + ".svg";
      written.add(
          writeFile(
              dir.resolve(name),
              SvgChart.bars(workload.workload().id() + " " + workload.workload().title(), panels)));
      charts.add(name);
    }
    List<SvgChart.Ratio> ratios = new ArrayList<>();
    for (Targets.Verdict verdict : verdicts) {
      if (!Double.isNaN(verdict.ratioGoal())) {
        ratios.add(
            new SvgChart.Ratio(
                verdict.workload() + " " + verdict.target(),
                verdict.value(),
                verdict.ratioGoal(),
                verdict.atLeast(),
                verdict.outcome()));
      }
    }
    written.add(
        writeFile(
            dir.resolve("targets.svg"),
            SvgChart.ratios(
                "Warden / Redisson against the targets (issues 5, 21 and the cross-process issue)",
                ratios)));
    written.add(writeFile(dir.resolve("summary.md"), Report.markdown(results, verdicts, charts)));
    written.add(writeFile(dir.resolve("results.json"), Json.write(results.toJson(verdicts))));
    return written;
  }

  private static Path writeFile(Path file, String content) throws IOException {
    return Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private Map<String, Object> about(Servers servers) {
    Map<String, Object> about = new LinkedHashMap<>();
    about.put("started_at", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    about.put(
        "mode",
        settings.quick()
            ? "quick (smoke run): one " + settings.seconds() + " s window per point and library"
            : "full: "
                + settings.rounds()
                + " rounds of "
                + settings.window().toSeconds()
                + " s per point and library, A B B A, after "
                + JVM_WARM_UP.toSeconds()
                + " s each of unmeasured W1 T=4 and W5 N=1,000 per library to warm the JIT");
    about.put("warden_version", mavenVersion("dev.warden", "warden-core"));
    // Which Warden was measured: the checkout's commit and the jar's digest tell builds apart.
    about.put("git_commit", gitCommit());
    about.put("warden_core_sha256", codeDigest(Warden.class));
    about.put("redisson_version", mavenVersion("org.redisson", "redisson"));
    about.put("redis_version", servers.singleStats().serverVersion());
    about.put("redis", servers.single().description());
    about.put("network", servers.network().description());
    about.put("round_trip_ms", servers.network().roundTrip().toNanos() / 1e6);
    about.put("java_version", System.getProperty("java.version"));
    about.put("cores", Runtime.getRuntime().availableProcessors());
    // Other work on the machine skews absolute numbers (ratios much less): worth recording.
    about.put("load_average_at_start", loadAverage());
    about.put("measured_s_per_point_and_library", settings.seconds());
    about.put("rounds", settings.rounds());
    about.put("window_s", settings.window().toMillis() / 1000.0);
    about.put("warm_up_s", settings.warmUp().toMillis() / 1000.0);
    about.put("ratio", "warden / redisson");
    return about;
  }

  /** Returns the system's one-minute load average, or NaN where the platform has none. */
  private static double loadAverage() {
    return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100)
        / 100.0;
  }

  /**
   * Returns {@code git rev-parse --short HEAD} of the working directory, "-dirty" if it has
   * changes.
   */
  private static String gitCommit() {
    try {
      String commit = runGit("rev-parse", "--short", "HEAD");
      String changes = runGit("status", "--porcelain", "--untracked-files=no");
      return commit.isEmpty() ? "unknown" : commit + (changes.isEmpty() ? "" : "-dirty");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String runGit(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return git.waitFor() == 0 ? output : "";
  }

  /**
   * Returns the first 12 hex digits of the SHA-256 of the jar a class was loaded from, or
   * "classes".
   */
  private static String codeDigest(Class<?> type) {
    try {
      Path source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(source)) {
        return "classes";
      }
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(source));
      return HexFormat.of().formatHex(digest).substring(0, 12);
    } catch (IOException | URISyntaxException | NoSuchAlgorithmException | RuntimeException e) {
      return "unknown";
    }
  }

  /** Returns a library's version from the pom.properties Maven packs into its jar. */
  private static String mavenVersion(String group, String artifact) {
    String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = Main.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * Estimates the run's length: warm-up, window and about 2 s of setup and stop per run, and the
   * worker JVMs' start of a launched point.
   */
  private static long estimateMinutes(Map<Workload, List<Point>> plan) {
    Duration total = Duration.ZERO;
    for (List<Point> points : plan.values()) {
      for (Point point : points) {
        total =
            total.plus(
                point
                    .warmUp()
                    .plus(point.window())
                    .plusSeconds(2)
                    .plus(
                        point.starter() instanceof Point.Launcher launcher
                            ? launcher.setUp()
                            : Duration.ZERO)
                    .multipliedBy(2L * point.rounds()));
      }
    }
    return Math.max(1, Math.round(total.toSeconds() / 60.0));
  }

  /** Returns whether a Warden run failed or broke mutual exclusion. */
  private static boolean wardenFailed(Results results) {
    return results.workloads().stream()
        .flatMap(w -> w.points().stream())
        .map(p -> p.sample(Library.WARDEN))
        .anyMatch(s -> s.status() == Sample.Status.FAILED || !s.problems().isEmpty());
  }
}
