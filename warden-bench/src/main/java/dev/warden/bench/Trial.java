package dev.warden.bench;

import java.time.Duration;

/**
 * One library's run at one point of a workload, already started (threads running, warming up) when
 * {@link Point.Starter#start} returns it. The runner opens and closes the measured window around
 * its Redis and CPU snapshots and then finishes the trial.
 */
interface Trial {

  /** Waits {@code duration}, or less if a worker fails meanwhile. */
  void await(Duration duration) throws InterruptedException;

  /** Opens the measured window: events and latencies from now on count. */
  void openWindow();

  /** Closes the measured window: nothing counts any more. */
  void closeWindow();

  /**
   * Stops the workers, waits at most {@code grace} for them to end, undoes the trial's setup, and
   * returns the merged tally.
   *
   * @throws BenchException if a worker failed or did not stop in time
   */
  Tally finish(Duration grace) throws InterruptedException;
}
