package dev.warden.cli;

import dev.warden.WakeUps;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code warden chaos}: worker processes use every Warden primitive on a throwaway deployment while
 * a fault injector breaks it; then {@link ChaosChecker} proves from their logs that no two sections
 * held a lock at once (readers apart), every lost lease was reported and explained by a fault, no
 * permit was created and every wait kept its bound, and the driver checks that nothing leaked.
 *
 * <p>Runs on the caller's thread, plus one fault-injector thread per deployment. A shutdown hook
 * stops the workers and the deployment when the run is interrupted.
 */
final class Chaos {
  /**
   * TEST ONLY: a system property naming a directory of Lua scripts, laid out as Warden's resources
   * ({@code dev/warden/internal/lock/driver/lock-acquire.lua}), that the workers load in place of
   * Warden's own: the seam through which {@code ChaosBrokenScriptIT} proves that a run against a
   * deliberately broken script fails. Never set it anywhere else: the run would check a Warden
   * broken on purpose, and says so in its output. Nothing sets it: the {@code warden} launcher
   * passes no system property, and the directory may hold nothing but {@code .lua} files, so it
   * cannot put code on the workers' class path.
   */
  static final String TEST_SCRIPTS_PROPERTY = "warden.chaos.testOnly.scripts";

  static final int MAX_WORKERS = 16;
  static final int MAX_THREADS = 32;
  static final int MAX_SECONDS = 24 * 3600;
  private static final Duration READY_LIMIT = Duration.ofSeconds(90);
  private static final Duration QUIET_END = Duration.ofSeconds(10);
  private static final Duration SETTLE_LIMIT = Duration.ofSeconds(40);

  private record Settings(
      List<ChaosDeployment.Kind> kinds,
      int seconds,
      int workers,
      int threads,
      long seed,
      Path out,
      List<Path> testScripts,
      WakeUps wakeUps) {}

  private final Settings settings;
  private final PrintStream out;
  private final PrintStream err;
  private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
  private volatile ChaosDeployment deployment;

  private Chaos(Settings settings, PrintStream out, PrintStream err) {
    this.settings = settings;
    this.out = out;
    this.err = err;
  }

  /** Runs the {@code chaos} command; returns the exit status: 0 no violation, 1 otherwise. */
  static int run(List<String> args, PrintStream out, PrintStream err) throws InterruptedException {
    Options options =
        Options.parse(
            "chaos",
            args,
            Set.of(
                "--deployment",
                "--minutes",
                "--seconds",
                "--workers",
                "--threads",
                "--seed",
                "--out",
                "--check",
                "--wake-ups"),
            Set.of());
    if (options.helpRequested()) {
      out.print(Main.USAGE);
      return 0;
    }
    options.requireNoPositionals();
    if (options.optional("--check").isPresent()) {
      return recheck(Path.of(options.required("--check")), out);
    }
    String deployment = options.string("--deployment", "single");
    List<ChaosDeployment.Kind> kinds =
        switch (deployment) {
          case "single" -> List.of(ChaosDeployment.Kind.SINGLE);
          case "sentinel" -> List.of(ChaosDeployment.Kind.SENTINEL);
          case "cluster" -> List.of(ChaosDeployment.Kind.CLUSTER);
          case "all" -> List.of(ChaosDeployment.Kind.values());
          default ->
              throw new UsageException(
                  "--deployment must be single, sentinel, cluster or all: " + deployment);
        };
    int seconds =
        options.optional("--seconds").isPresent()
            ? options.intInRange("--seconds", 60, 20, MAX_SECONDS)
            : options.intInRange("--minutes", 2, 1, MAX_SECONDS / 60) * 60;
    long seed;
    try {
      seed = Long.parseLong(options.string("--seed", Long.toString(System.nanoTime() % 1_000_000)));
    } catch (NumberFormatException e) {
      throw new UsageException("--seed must be a whole number: " + options.required("--seed"));
    }
    int workers = options.intInRange("--workers", 3, 1, MAX_WORKERS);
    int threads = options.intInRange("--threads", 3, 1, MAX_THREADS);
    WakeUps wakeUps = wakeUps(options.string("--wake-ups", "auto"));
    Path outDir;
    try {
      outDir =
          options.optional("--out").isPresent()
              ? Files.createDirectories(Path.of(options.required("--out")))
              : Files.createTempDirectory("warden-chaos-");
      outDir = outDir.toAbsolutePath();
    } catch (IOException e) {
      throw new UsageException("--out cannot be created: " + e.getMessage());
    }
    Settings settings =
        new Settings(kinds, seconds, workers, threads, seed, outDir, testScripts(), wakeUps);
    return new Chaos(settings, out, err).execute();
  }

  /** The workers' {@link WakeUps} for {@code --wake-ups client|scripts|auto}. */
  private static WakeUps wakeUps(String value) {
    return switch (value) {
      case "auto" -> WakeUps.AUTO;
      case "scripts" -> WakeUps.FROM_SCRIPTS;
      case "client" -> WakeUps.FROM_CLIENT;
      default -> throw new UsageException("--wake-ups must be client, scripts or auto: " + value);
    };
  }

  /** The directory of {@link #TEST_SCRIPTS_PROPERTY}, checked, or none. */
  private static List<Path> testScripts() {
    String property = System.getProperty(TEST_SCRIPTS_PROPERTY);
    if (property == null) {
      return List.of();
    }
    Path dir = Path.of(property).toAbsolutePath();
    if (!Files.isDirectory(dir)) {
      throw new UsageException(TEST_SCRIPTS_PROPERTY + " must name a directory: " + property);
    }
    try (Stream<Path> files = Files.walk(dir)) {
      List<Path> others =
          files
              .filter(file -> !Files.isDirectory(file) && !file.toString().endsWith(".lua"))
              .toList();
      if (!others.isEmpty()) {
        throw new UsageException(
            TEST_SCRIPTS_PROPERTY + " must name a directory of .lua files only: " + others);
      }
    } catch (IOException e) {
      throw new UsageException(TEST_SCRIPTS_PROPERTY + " cannot be read: " + e.getMessage());
    }
    return List.of(dir);
  }

  /**
   * Runs the checker again on the logs of an earlier run in {@code dir} (one subdirectory per
   * deployment); the end-of-run checks of Redis itself need the live deployment and are not
   * repeated.
   */
  private static int recheck(Path dir, PrintStream out) {
    int status = 0;
    boolean found = false;
    for (ChaosDeployment.Kind kind : ChaosDeployment.Kind.values()) {
      Path logs = dir.resolve(kind.label());
      if (!Files.isRegularFile(logs.resolve("faults.log"))) {
        continue;
      }
      found = true;
      List<Path> workerLogs = new ArrayList<>();
      for (int number = 1; Files.exists(logs.resolve("worker-" + number + ".log")); number++) {
        workerLogs.add(logs.resolve("worker-" + number + ".log"));
      }
      ChaosChecker.Report report =
          ChaosChecker.read(workerLogs, logs.resolve("faults.log")).check();
      List<String> lines =
          figures(
              kind.label() + ", logs re-checked from " + logs,
              report,
              report.acquisitions(),
              report.violations());
      lines.forEach(out::println);
      status = report.violations().isEmpty() ? status : 1;
    }
    if (!found) {
      throw new UsageException("--check found no chaos logs under " + dir);
    }
    return status;
  }

  private int execute() throws InterruptedException {
    Thread cleanup = new Thread(this::stopEverything, "warden-chaos-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    int status = 0;
    try {
      for (ChaosDeployment.Kind kind : settings.kinds()) {
        status = Math.max(status, runOn(kind));
      }
    } finally {
      stopEverything();
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // The hook does the same cleanup.
      }
    }
    return status;
  }

  private int runOn(ChaosDeployment.Kind kind) throws InterruptedException {
    Path dir = settings.out().resolve(kind.label());
    out.printf(
        Locale.ROOT,
        "Warden chaos on %s: %d workers x %d threads for %s, seed %d, wake-ups %s, logs in %s%n",
        kind.label(),
        settings.workers(),
        settings.threads(),
        Text.millis(TimeUnit.SECONDS.toMillis(settings.seconds())),
        settings.seed(),
        settings.wakeUps(),
        dir);
    for (Path scripts : settings.testScripts()) {
      out.println(
          "TEST ONLY: the workers load Warden's scripts from "
              + scripts
              + " first ("
              + TEST_SCRIPTS_PROPERTY
              + "): this run checks a Warden broken on purpose");
    }
    try {
      Files.createDirectories(dir);
      deployment = ChaosDeployment.start(kind, settings.workers());
    } catch (IOException | RuntimeException e) {
      out.println("VERDICT: FAIL (cannot start the deployment: " + e.getMessage() + ")");
      return 1;
    }
    List<String> problems = new ArrayList<>();
    ChaosFaults faults = null;
    try {
      out.println("Redis: " + deployment.describe());
      deployment.snapshot();
      ChaosEpochs epochs = ChaosEpochs.start(dir.resolve("epoch"));
      for (int number = 1; number <= settings.workers(); number++) {
        workers.add(WorkerProcess.start(number, workerCommand(number, dir), err));
      }
      for (WorkerProcess worker : workers) {
        if (!worker.awaitReady(READY_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
          out.println("VERDICT: FAIL (worker " + worker.number() + " not ready)");
          return 1;
        }
      }
      // the mode each worker's build() chose (AUTO: FROM_SCRIPTS where scripts may publish)
      out.println(
          "Wake-ups: "
              + workers.stream()
                  .map(WorkerProcess::wakeUps)
                  .distinct()
                  .sorted()
                  .collect(Collectors.joining(", "))
              + " (asked: "
              + settings.wakeUps()
              + ")");
      long started = System.nanoTime();
      for (WorkerProcess worker : workers) {
        worker.go();
      }
      long faultsEnd = started + Duration.ofSeconds(settings.seconds()).minus(QUIET_END).toNanos();
      faults =
          ChaosFaults.start(
              deployment,
              workers.stream().map(WorkerProcess::pid).toList(),
              new Random(settings.seed()),
              dir.resolve("faults.log"),
              epochs,
              faultsEnd,
              err);
      long acquisitions = 0;
      for (WorkerProcess worker : workers) {
        var result = worker.result();
        if (result.isPresent() && worker.exitValue() == 0) {
          acquisitions += result.get().acquisitions();
        } else {
          problems.add(worker.problem());
        }
      }
      faults.stop();
      deployment.heal();
      problems.addAll(leftovers(faults.quietEpoch()));
      ChaosChecker.Report report =
          ChaosChecker.read(
                  workers.stream().map(w -> dir.resolve("worker-" + w.number() + ".log")).toList(),
                  dir.resolve("faults.log"))
              .check();
      problems.addAll(report.violations());
      problems.addAll(faults.failures());
      print(kind, report, acquisitions, problems, dir);
      return problems.isEmpty() ? 0 : 1;
    } catch (IOException e) {
      out.println("VERDICT: FAIL (cannot talk to the workers: " + e.getMessage() + ")");
      return 1;
    } finally {
      if (faults != null) {
        faults.stop();
      }
      stopWorkersAndDeployment();
    }
  }

  private List<String> workerCommand(int number, Path dir) {
    List<String> command = WorkerProcess.javaCommand("chaos-worker", settings.testScripts());
    command.addAll(deployment.workerTarget(number).arguments());
    command.addAll(
        List.of(
            "--log",
            dir.resolve("worker-" + number + ".log").toString(),
            "--epochs",
            dir.resolve("epoch").toString(),
            "--worker",
            Integer.toString(number),
            "--threads",
            Integer.toString(settings.threads()),
            "--seconds",
            Integer.toString(settings.seconds()),
            "--seed",
            Long.toString(settings.seed()),
            "--wake-ups",
            settings.wakeUps().name()));
    return command;
  }

  /**
   * Waits until Redis holds only what Warden keeps by design (fence counters and semaphore counts)
   * and the leased semaphore has all its permits back; returns what is still wrong after {@link
   * #SETTLE_LIMIT}. The plain semaphore of {@code quietEpoch} (if not -1: no fault lost data since
   * it began) must have at most its permits: fewer if a permit's acquisition failed after taking
   * it, never more.
   */
  private List<String> leftovers(int quietEpoch) throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
    List<String> problems;
    do {
      problems = new ArrayList<>();
      try (Warden warden = deployment.directTarget().connect()) {
        for (RedisServer server : deployment.dataServers()) {
          problems.addAll(ChaosChecker.leftoverKeys(server.redis().keys("*")));
        }
        if (quietEpoch >= 0) {
          String plain = ChaosEpochs.semaphore(quietEpoch);
          int free = warden.semaphore(plain).availablePermits();
          if (free > ChaosWorker.SEMAPHORE_PERMITS) {
            problems.add(
                "the plain semaphore "
                    + plain
                    + " has "
                    + free
                    + " permits after the run, above its "
                    + ChaosWorker.SEMAPHORE_PERMITS
                    + ", with no fault that lost data since it was new");
          }
        }
        int leased = warden.leasedSemaphore(ChaosWorker.LEASED).availablePermits();
        if (leased != ChaosWorker.LEASED_PERMITS) {
          problems.add(
              "the leased semaphore has "
                  + leased
                  + " permits, not "
                  + ChaosWorker.LEASED_PERMITS
                  + ", after every lease ended");
        }
      } catch (RuntimeException e) {
        problems.add("cannot check what is left in Redis: " + e.getMessage());
      }
      if (problems.isEmpty()) {
        return problems;
      }
      Thread.sleep(500); // leases and op markers expire by themselves; look again shortly
    } while (System.nanoTime() - deadline < 0);
    return problems;
  }

  private void print(
      ChaosDeployment.Kind kind,
      ChaosChecker.Report report,
      long acquisitions,
      List<String> problems,
      Path dir) {
    List<String> lines =
        figures(kind.label() + " (" + deployment.describe() + ")", report, acquisitions, problems);
    if (!problems.isEmpty()) {
      lines.add(lines.size() - 1, "  logs in " + dir + "; every violation in violations.txt");
    }
    lines.forEach(out::println);
    try {
      Files.write(dir.resolve("summary.txt"), lines);
      Files.write(dir.resolve("violations.txt"), problems);
    } catch (IOException e) {
      err.println("warden chaos: cannot write " + dir.resolve("summary.txt") + ": " + e);
    }
  }

  private static List<String> figures(
      String what, ChaosChecker.Report report, long acquisitions, List<String> problems) {
    int total = report.faults().values().stream().mapToInt(Integer::intValue).sum();
    String byKind =
        report.faults().entrySet().stream()
            .map(entry -> entry.getKey() + " " + entry.getValue())
            .collect(Collectors.joining(", "));
    List<String> lines = new ArrayList<>();
    lines.add("Results on " + what);
    lines.add("  faults injected       " + total + (total > 0 ? " (" + byKind + ")" : ""));
    lines.add(
        "  acquisitions          "
            + Text.grouped(report.acquisitions())
            + " (locks and permits; workers reported "
            + Text.grouped(acquisitions)
            + ")");
    ChaosSections.Figures sections = report.sections();
    lines.add(
        "  lock sections         "
            + Text.grouped(sections.sections())
            + " ("
            + Text.grouped(sections.readSections())
            + " of readers)");
    lines.add(
        "  protected writes      "
            + Text.grouped(sections.writesAccepted())
            + " accepted, "
            + Text.grouped(sections.writesRejected())
            + " rejected as stale by the token-checking resource");
    lines.add(
        "  protected reads       "
            + Text.grouped(sections.readsGood())
            + " good, "
            + Text.grouped(sections.readsStale())
            + " stale (a later writer had written)");
    lines.add(
        "  longest wait          "
            + Text.millis(report.longestWaitMillis())
            + " (bound: wait "
            + Text.millis(ChaosWorker.WAIT.toMillis())
            + " + "
            + Text.millis(ChaosChecker.WAIT_SLACK.toMillis())
            + ", tolerance "
            + Text.millis(ChaosChecker.TOLERANCE.toMillis())
            + "); "
            + Text.grouped(report.waitsTimedOut())
            + " waits timed out");
    lines.add(
        "  leases lost           "
            + sections.lost()
            + ": reported to their holder "
            + sections.reported()
            + ", explained by a fault "
            + sections.explained()
            + " ("
            + sections.explainedByPause()
            + " by a worker pause), only a failed release "
            + sections.failedReleaseOnly());
    ChaosPauses.Figures pauses = report.pauses();
    List<String> described = pauses.described(report.origin());
    lines.add(
        "  worker pauses         "
            + pauses.lengthy().size()
            + " of "
            + Text.millis(ChaosPauses.RENEWAL_SLACK.toMillis())
            + " or more (the lease's renewal slack)"
            + (described.isEmpty()
                ? ""
                : ": "
                    + String.join(", ", described.subList(0, Math.min(5, described.size())))
                    + (described.size() > 5 ? ", ..." : ""))
            + "; "
            + pauses.shorter()
            + " shorter ones of "
            + Text.millis(ChaosHeartbeat.LOGGED.toMillis())
            + " or more"
            + (pauses.shorter() > 0
                ? " (longest " + Text.millis(pauses.longestShorterMillis()) + ")"
                : ""));
    ChaosPermits.Plain semaphore = report.semaphore();
    lines.add(
        String.format(
            Locale.ROOT,
            "  plain semaphore       judged at exactly its %d permits for %.0f %% of the run (%d"
                + " epoch%s: a new semaphore after each fault that lost data)",
            ChaosWorker.SEMAPHORE_PERMITS,
            100 * semaphore.shareJudged(),
            semaphore.epochs(),
            semaphore.epochs() == 1 ? "" : "s"));
    lines.add(
        "  Redis errors seen     " + Text.grouped(report.errors()) + " (expected under faults)");
    lines.add("  violations            " + problems.size());
    // The first of each kind, and how many more there are: every kind shows, however many.
    Map<String, List<String>> byClass = new LinkedHashMap<>();
    for (String problem : problems) {
      int colon = problem.indexOf(": ");
      byClass
          .computeIfAbsent(
              colon < 0 ? problem : problem.substring(0, colon), k -> new ArrayList<>())
          .add(problem);
    }
    byClass.forEach(
        (kind, all) ->
            lines.add(
                "    "
                    + all.get(0)
                    + (all.size() > 1 ? " (and " + (all.size() - 1) + " more like it)" : "")));
    lines.add(problems.isEmpty() ? "VERDICT: PASS" : "VERDICT: FAIL");
    return lines;
  }

  private void stopWorkersAndDeployment() {
    workers.forEach(WorkerProcess::closeInput);
    workers.forEach(WorkerProcess::stop);
    workers.clear();
    ChaosDeployment current = deployment;
    deployment = null;
    if (current != null) {
      current.close();
    }
  }

  private synchronized void stopEverything() {
    stopWorkersAndDeployment();
  }
}
