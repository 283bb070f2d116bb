package dev.warden.cli;

import dev.warden.LockInfo;
import dev.warden.Warden;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * {@code warden demo}: worker processes increment one counter under one lock, unsafely (separate
 * GET and SET) so that any overlap of critical sections would lose increments, and record each
 * fencing token; then the demo checks the count and the token order and prints a verdict.
 *
 * <p>Runs on the caller's thread. A shutdown hook stops the workers and the throwaway Redis when
 * the demo is interrupted; workers also exit by themselves when the demo's end of their stdin
 * closes, so none outlives it even after {@code kill -9}.
 */
final class Demo {
  static final String DEFAULT_LOCK = "demo-counter";
  static final int MAX_WORKERS = 64;
  static final int MAX_THREADS = 256;
  static final int MAX_SECONDS = 3600;
  private static final Duration READY_LIMIT = Duration.ofSeconds(60);
  private static final Duration FINISH_GRACE = Duration.ofSeconds(60);

  private record Settings(
      Optional<String> uri,
      boolean cluster,
      boolean sentinel,
      boolean failover,
      int workers,
      int threads,
      int seconds,
      String lock,
      Optional<String> keyPrefix) {}

  private final Settings settings;
  private final PrintStream out;
  private final PrintStream err;
  private final boolean console;
  private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
  private volatile Throwaway throwaway;
  private final CompletableFuture<String> failedOver = new CompletableFuture<>();
  private boolean stopped; // guarded by this

  private Demo(Settings settings, PrintStream out, PrintStream err, boolean console) {
    this.settings = settings;
    this.out = out;
    this.err = err;
    this.console = console;
  }

  /** Runs the {@code demo} command; returns the exit status: 0 pass, 1 fail. */
  // SystemConsoleNull: only whether the output is live; isTerminal() is JDK 22+
  @SuppressWarnings("SystemConsoleNull")
  static int run(List<String> args, PrintStream out, PrintStream err) throws InterruptedException {
    Options options =
        Options.parse(
            "demo",
            args,
            Set.of("--uri", "--workers", "--threads", "--seconds", "--lock", "--key-prefix"),
            Set.of("--cluster", "--sentinel", "--failover"));
    if (options.helpRequested()) {
      out.print(Main.USAGE);
      return 0;
    }
    options.requireNoPositionals();
    Settings settings =
        new Settings(
            options.optional("--uri"),
            options.flag("--cluster"),
            options.flag("--sentinel"),
            options.flag("--failover"),
            options.intInRange("--workers", 4, 1, MAX_WORKERS),
            options.intInRange("--threads", 4, 1, MAX_THREADS),
            options.intInRange("--seconds", 10, 1, MAX_SECONDS),
            options.string("--lock", DEFAULT_LOCK),
            options.optional("--key-prefix"));
    requireConsistent(settings);
    return new Demo(settings, out, err, System.console() != null).execute();
  }

  private static void requireConsistent(Settings settings) {
    if (settings.cluster() && settings.sentinel()) {
      throw new UsageException("--cluster and --sentinel exclude each other");
    }
    if (settings.sentinel() && settings.uri().isPresent()) {
      throw new UsageException(
          "--sentinel starts a throwaway Sentinel set; for yours give --uri"
              + " redis-sentinel://host:port,host:port#master alone");
    }
    if (settings.failover()
        && (settings.uri().isPresent() || !(settings.cluster() || settings.sentinel()))) {
      throw new UsageException(
          "--failover fails over a throwaway deployment the demo starts: use it with --cluster or"
              + " --sentinel and without --uri");
    }
  }

  private int execute() throws InterruptedException {
    Thread cleanup =
        new Thread(
            () -> {
              if (!isStopped()) {
                err.println();
                err.println("warden demo: interrupted; stopping the workers");
              }
              stopEverything();
            },
            "warden-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      return runAndJudge();
    } finally {
      stopEverything();
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is already exiting and the hook does the same cleanup, which is now done.
      }
    }
  }

  private int runAndJudge() throws InterruptedException {
    out.printf(
        "Warden demo: %d worker processes x %d threads for %d s on lock '%s'%n",
        settings.workers(), settings.threads(), settings.seconds(), settings.lock());
    Target target;
    try {
      target = target();
    } catch (RuntimeException e) {
      return fail("cannot start the throwaway Redis: " + e.getMessage());
    }
    Target store = throwaway == null ? target : throwaway.store();
    if (!store.equals(target)) {
      out.println(
          "Resource: the counter and tokens on a separate redis-server, "
              + store.describe()
              + ", as a database would be");
    }
    try (DemoKeys keys = DemoKeys.connect(store)) {
      keys.reset();
      out.printf("Cleared %s and %s%n", DemoKeys.COUNTER, DemoKeys.TOKENS);
      Optional<String> notStarted = startWorkers(target, store);
      if (notStarted.isPresent()) {
        return fail(notStarted.get());
      }
      long started = System.nanoTime();
      for (WorkerProcess worker : workers) {
        worker.go();
      }
      if (settings.failover()) {
        failOverHalfWay();
      }
      if (!showProgressUntilAllExit(started)) {
        return fail(
            "workers still running "
                + FINISH_GRACE.toSeconds()
                + " s after the end of the run; stopped them");
      }
      return judge(keys, target);
    } catch (IOException e) {
      return fail("cannot talk to the workers: " + e.getMessage());
    } catch (RuntimeException e) { // Lettuce: Redis unreachable or failing
      return fail("Redis at " + target.describe() + " failed: " + e.getMessage());
    }
  }

  private Target target() {
    if (settings.uri().isPresent()) {
      Target given =
          new Target(settings.uri().get(), settings.cluster(), settings.keyPrefix().orElse(null));
      out.println("Redis: " + given.describe());
      return given;
    }
    throwaway = Throwaway.start(settings.cluster(), settings.sentinel());
    Target target = throwaway.target().withKeyPrefix(settings.keyPrefix().orElse(null));
    out.println(
        "Redis: " + target.describe() + " (" + throwaway.describe() + ", stopped at the end)");
    return target;
  }

  /**
   * Fails over the master serving the lock, half-way through the run, on a thread of its own; the
   * outcome is printed with the results.
   */
  private void failOverHalfWay() {
    Thread thread =
        new Thread(
            () -> {
              try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds()) / 2);
                failedOver.complete(throwaway.failover("warden:{" + settings.lock() + "}:lock"));
              } catch (InterruptedException e) {
                failedOver.complete("not done: interrupted");
              } catch (RuntimeException e) {
                failedOver.complete("failed: " + e.getMessage());
              }
            },
            "warden-demo-failover");
    thread.setDaemon(true);
    thread.start();
  }

  /** Starts every worker and waits until all are ready; returns why not, if they are not. */
  private Optional<String> startWorkers(Target target, Target store)
      throws IOException, InterruptedException {
    long begin = System.nanoTime();
    for (int number = 1; number <= settings.workers(); number++) {
      workers.add(
          WorkerProcess.start(
              number, workerCommand(target), workerEnvironment(target, store), err));
    }
    long deadline = begin + READY_LIMIT.toNanos();
    for (WorkerProcess worker : workers) {
      long left = Math.max(0, deadline - System.nanoTime());
      if (!worker.awaitReady(left, TimeUnit.NANOSECONDS)) {
        return Optional.of(
            worker.isAlive()
                ? "worker " + worker.number() + " not ready after " + READY_LIMIT.toSeconds() + " s"
                : worker.problem() + " before it was ready");
      }
    }
    out.printf(
        "Workers: %d JVMs x %d threads ready in %s, each warmed up on the lock for %d s (pids %s)%n",
        workers.size(),
        settings.threads(),
        Text.micros(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - begin)),
        DemoWorker.WARM_UP.toSeconds(),
        workers.stream().map(w -> Long.toString(w.pid())).collect(Collectors.joining(" ")));
    return Optional.empty();
  }

  /** The URIs, which may hold a password: in the environment, which {@code ps} does not show. */
  private static Map<String, String> workerEnvironment(Target target, Target store) {
    Map<String, String> environment = new HashMap<>();
    environment.put(DemoWorker.URI_VARIABLE, target.uri());
    if (!store.equals(target)) {
      environment.put(DemoWorker.STORE_VARIABLE, store.uri());
    }
    return environment;
  }

  private List<String> workerCommand(Target target) {
    List<String> command = WorkerProcess.javaCommand("worker");
    if (target.cluster()) {
      command.add("--cluster");
    }
    if (target.keyPrefix() != null) {
      command.addAll(List.of("--key-prefix", target.keyPrefix()));
    }
    command.addAll(
        List.of(
            "--threads",
            Integer.toString(settings.threads()),
            "--seconds",
            Integer.toString(settings.seconds()),
            "--lock",
            settings.lock()));
    return command;
  }

  /**
   * Shows progress until every worker has exited; returns false if they overran and were stopped.
   */
  private boolean showProgressUntilAllExit(long started) throws InterruptedException {
    CompletableFuture<Void> allExited =
        CompletableFuture.allOf(
            workers.stream().map(WorkerProcess::onExit).toArray(CompletableFuture<?>[]::new));
    long tickMillis = console ? 250 : 1000;
    long limit = started + Duration.ofSeconds(settings.seconds()).plus(FINISH_GRACE).toNanos();
    int shown = 0;
    while (true) {
      try {
        allExited.get(tickMillis, TimeUnit.MILLISECONDS);
        break;
      } catch (TimeoutException notYet) {
        shown = showProgress(started, shown, false);
        if (System.nanoTime() - limit > 0) {
          out.println();
          stopEverything();
          return false;
        }
      } catch (ExecutionException impossible) { // onExit() never completes exceptionally
        throw new IllegalStateException(impossible);
      }
    }
    showProgress(started, shown, true);
    return true;
  }

  /** Prints one progress line, over the last one on a terminal; returns its length. */
  private int showProgress(long started, int previousLength, boolean last) {
    double elapsed = (System.nanoTime() - started) / 1e9;
    long acquisitions = workers.stream().mapToLong(WorkerProcess::progress).sum();
    String line =
        String.format(
            Locale.ROOT,
            "  %5.1f s of %d  |  %s acquisitions  |  %s/s",
            elapsed,
            settings.seconds(),
            Text.grouped(acquisitions),
            Text.grouped(Math.round(acquisitions / Math.max(elapsed, 0.001))));
    if (console) {
      out.print("\r" + Text.pad(line, previousLength) + (last ? System.lineSeparator() : ""));
      out.flush();
    } else {
      out.println(line);
    }
    return line.length();
  }

  private int judge(DemoKeys keys, Target target) throws InterruptedException {
    List<String> problems = new ArrayList<>();
    long acquisitions = 0;
    Histogram waits = Waits.histogram();
    long leasesLost = 0;
    long retriedCalls = 0;
    for (WorkerProcess worker : workers) {
      leasesLost += worker.leasesLost();
      retriedCalls += worker.retriedCalls();
      Optional<WorkerProcess.Result> result = worker.result();
      if (result.isPresent() && worker.exitValue() == 0) {
        acquisitions += result.get().acquisitions();
        waits.add(result.get().waits());
      } else {
        problems.add(worker.problem());
      }
    }
    long counter;
    long[] tokens;
    try {
      counter = keys.counter();
      tokens = keys.tokens();
    } catch (RuntimeException e) { // Lettuce: Redis went away during the run
      problems.add(
          "cannot read the counter and tokens from " + target.describe() + ": " + e.getMessage());
      return fail(String.join("; ", problems));
    }
    DemoOutcome outcome =
        new DemoOutcome(problems, acquisitions, counter, tokens, waits, leasesLost, retriedCalls);
    out.println();
    if (settings.failover()) {
      out.println("Failover: " + failedOver.getNow("not done: the run ended first"));
    }
    out.println("Results");
    outcome.report(lockAfterTheRun(target)).forEach(out::println);
    String verdict = outcome.verdict();
    out.println(verdict);
    return verdict.equals(DemoOutcome.PASS) ? 0 : 1;
  }

  /** Describes the lock as Warden sees it after the run; informative, not part of the verdict. */
  private String lockAfterTheRun(Target target) {
    try (Warden warden = target.connect()) {
      LockInfo info = warden.inspect(settings.lock());
      String last = info.lastToken() < 0 ? "none" : Text.grouped(info.lastToken());
      return (info.isLocked() ? "HELD by " + info.holders().keySet() : "free")
          + ", last token issued "
          + last;
    } catch (RuntimeException e) {
      return "not inspected: " + e;
    }
  }

  private int fail(String reason) {
    out.println("VERDICT: FAIL (" + reason + ")");
    return 1;
  }

  private synchronized boolean isStopped() {
    return stopped;
  }

  /** Stops the workers and the throwaway Redis; the first call does it, later ones return. */
  private synchronized void stopEverything() {
    if (stopped) {
      return;
    }
    stopped = true;
    workers.forEach(WorkerProcess::closeInput); // all at once: each exits on its own
    workers.forEach(WorkerProcess::stop);
    if (throwaway != null) {
      throwaway.close();
    }
  }
}
