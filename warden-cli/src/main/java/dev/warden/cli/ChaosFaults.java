package dev.warden.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The fault injector of {@code warden chaos}: a thread that, until a deadline, waits 2 to 6 s, then
 * injects one fault: one of the deployment's ({@link ChaosDeployment#injectOne}) or, one time in
 * six, stops a random worker process with SIGSTOP for longer than its lease and resumes it. After
 * every third fault it takes a snapshot, so that a later restart from a snapshot starts from one
 * seconds to a minute old. Each fault goes to the fault log as {@code F} with its start and end.
 *
 * <p>After a fault that lost data it waits until the deployment has settled ({@link
 * ChaosDeployment#settle}: no stale master left, no failover under way) and then announces the
 * plain semaphore's next epoch ({@link ChaosEpochs}); the next pause starts then. Before each fault
 * it waits until the deployment is back in the shape faults start from ({@link
 * ChaosDeployment#awaitReady}), so on Sentinel, which converts a failed-over master into a replica
 * some 10 s on, faults come further apart. A fault that fails part-way (a failover the sentinels do
 * not complete in time) is logged as {@link #FAILED}, a fault that may have lost data, and the run
 * goes on; {@link #MAX_FAILED_IN_A_ROW} in a row end the injection with a failure.
 *
 * <p>Thread-safe: {@link #stop}, {@link #failures} and {@link #quietEpoch} may be called from any
 * thread.
 */
final class ChaosFaults {
  /**
   * The kind logged for a fault that failed part-way (its own kind is not known then); it counts as
   * one that may have lost data, so the checker lets it explain a lost lease during and after it.
   */
  static final String FAILED = "failed-fault";

  /** Faults failing in a row after which the injector gives up (a violation: the run is void). */
  static final int MAX_FAILED_IN_A_ROW = 3;

  private final ChaosDeployment deployment;
  private final List<Long> workerPids;
  private final Random random;
  private final ChaosLog log;
  private final ChaosEpochs epochs;
  private final long end;
  private final PrintStream err;
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private final Thread thread;
  private boolean quiet = true; // no fault that may have lost data since the epoch began
  private int failedInARow; // faults that failed since the last one that did not; injector only

  private ChaosFaults(
      ChaosDeployment deployment,
      List<Long> workerPids,
      Random random,
      ChaosLog log,
      ChaosEpochs epochs,
      long end,
      PrintStream err) {
    this.deployment = deployment;
    this.workerPids = List.copyOf(workerPids);
    this.random = random;
    this.log = log;
    this.epochs = epochs;
    this.end = end;
    this.err = err;
    this.thread = new Thread(this::run, "warden-chaos-faults");
    thread.setDaemon(true);
  }

  /**
   * Starts injecting faults until {@code end} ({@link System#nanoTime()}), announcing the plain
   * semaphore's epochs in {@code epochs}.
   */
  static ChaosFaults start(
      ChaosDeployment deployment,
      List<Long> workerPids,
      Random random,
      Path logFile,
      ChaosEpochs epochs,
      long end,
      PrintStream err) {
    ChaosFaults faults =
        new ChaosFaults(deployment, workerPids, random, ChaosLog.create(logFile), epochs, end, err);
    faults.thread.start();
    return faults;
  }

  /** Stops injecting, waits for the fault in progress to end, and closes the log. Idempotent. */
  void stop() throws InterruptedException {
    thread.interrupt();
    thread.join(TimeUnit.SECONDS.toMillis(120));
    synchronized (log) {
      log.close();
    }
  }

  /**
   * Returns the plain semaphore's current epoch if no fault that may have lost data began since it
   * was announced (a fault cut short by {@link #stop} may have), or -1.
   */
  synchronized int quietEpoch() {
    return quiet ? epochs.current() : -1;
  }

  private synchronized void setQuiet(boolean quiet) {
    this.quiet = quiet;
  }

  /** Returns the faults that could not be injected (the deployment failed to recover). */
  List<String> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  private void run() {
    int count = 0;
    try {
      while (true) {
        long pause = 2000L + random.nextInt(4000);
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - end > 0) {
          return;
        }
        Thread.sleep(pause); // the time between faults is the schedule itself
        if (!deployment.awaitReady()) {
          err.println("warden chaos: the deployment is not back in shape; injecting anyway");
        }
        if (System.nanoTime() - end > 0) {
          return;
        }
        boolean wasQuiet = quietEpoch() >= 0;
        setQuiet(false); // until the fault is known to have kept the data
        long start = System.nanoTime();
        ChaosDeployment.Data data = ChaosDeployment.Data.KEPT;
        String kind = "stop-worker";
        if (random.nextInt(6) == 0) {
          int worker = random.nextInt(workerPids.size());
          stopWorker(worker);
          log.writeAt(
              start,
              "F",
              System.nanoTime(),
              "stop-worker",
              ChaosDeployment.Data.KEPT.logged(),
              worker + 1,
              "SIGSTOP " + ChaosDeployment.PAST_THE_LEASE.toMillis() + " ms");
        } else {
          ChaosDeployment.Outcome outcome;
          try {
            outcome = deployment.injectOne(random);
            failedInARow = 0;
          } catch (RuntimeException failed) {
            if (++failedInARow >= MAX_FAILED_IN_A_ROW) {
              throw failed;
            }
            // it may have done part of its work (a failover the sentinels did not complete), so it
            // is logged as a fault that may have lost data: it explains what happened meanwhile
            err.println(
                "warden chaos: a fault failed; going on once the deployment is back: " + failed);
            outcome =
                new ChaosDeployment.Outcome(
                    FAILED, ChaosDeployment.Data.REWOUND, 0, "failed: " + failed.getMessage());
          }
          data = outcome.data();
          kind = outcome.kind();
          log.writeAt(
              start,
              "F",
              System.nanoTime(),
              outcome.kind(),
              outcome.data().logged(),
              outcome.worker() == 0 ? "-" : outcome.worker(),
              outcome.detail());
        }
        if (data != ChaosDeployment.Data.KEPT) {
          newEpoch(kind);
        } else {
          setQuiet(wasQuiet);
        }
        if (++count % 3 == 0) { // a later restart from it starts from a snapshot seconds old
          deployment.snapshot();
        }
      }
    } catch (InterruptedException stopped) {
      // stop() was called: the run is over.
    } catch (RuntimeException e) {
      failures.add("the fault injector failed: " + e);
      err.println("warden chaos: the fault injector failed: " + e);
      e.printStackTrace(err);
    }
  }

  /**
   * Once the deployment has settled after a fault of {@code kind} that lost data, announces the
   * plain semaphore's next epoch; if it does not settle, the epoch stays (and is no longer judged).
   */
  private void newEpoch(String kind) throws InterruptedException {
    long settling = System.nanoTime();
    if (!deployment.settle()) {
      err.println(
          "warden chaos: the deployment did not settle after "
              + kind
              + "; the plain semaphore keeps epoch "
              + epochs.current()
              + ", no longer judged");
      return;
    }
    epochs.announce(log, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - settling));
    setQuiet(true);
  }

  private void stopWorker(int worker) throws InterruptedException {
    long pid = workerPids.get(worker);
    signal(pid, "STOP");
    try {
      Thread.sleep(ChaosDeployment.PAST_THE_LEASE.toMillis()); // the stop lasts this long
    } finally {
      signal(pid, "CONT");
    }
  }

  private static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + signal + " to " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
    }
  }
}
