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
 * <p>Thread-safe: {@link #stop} and {@link #failures} may be called from any thread.
 */
final class ChaosFaults {
  private final ChaosDeployment deployment;
  private final List<Long> workerPids;
  private final Random random;
  private final ChaosLog log;
  private final long end;
  private final PrintStream err;
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private final Thread thread;

  private ChaosFaults(
      ChaosDeployment deployment,
      List<Long> workerPids,
      Random random,
      ChaosLog log,
      long end,
      PrintStream err) {
    this.deployment = deployment;
    this.workerPids = List.copyOf(workerPids);
    this.random = random;
    this.log = log;
    this.end = end;
    this.err = err;
    this.thread = new Thread(this::run, "warden-chaos-faults");
    thread.setDaemon(true);
  }

  /** Starts injecting faults until {@code end} ({@link System#nanoTime()}). */
  static ChaosFaults start(
      ChaosDeployment deployment,
      List<Long> workerPids,
      Random random,
      Path logFile,
      long end,
      PrintStream err) {
    ChaosFaults faults =
        new ChaosFaults(deployment, workerPids, random, ChaosLog.create(logFile), end, err);
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
        long start = System.nanoTime();
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
          ChaosDeployment.Outcome outcome = deployment.injectOne(random);
          log.writeAt(
              start,
              "F",
              System.nanoTime(),
              outcome.kind(),
              outcome.data().logged(),
              outcome.worker() == 0 ? "-" : outcome.worker(),
              outcome.detail());
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
