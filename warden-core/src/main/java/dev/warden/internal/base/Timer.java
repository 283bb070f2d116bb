package dev.warden.internal.base;

import java.util.concurrent.RejectedExecutionException;

/**
 * Runs short tasks later, on one thread per Warden: re-checks of parked acquisitions, verdict
 * deadlines, retry back-offs, lease-keeper ticks, the end of idle subscriptions. Tasks must not
 * block. Injected, with {@link Clock}, so that tests can run the engine in virtual time.
 */
public interface Timer {
  /**
   * Runs the task once after the delay.
   *
   * @throws RejectedExecutionException if the timer was shut down
   */
  Scheduled schedule(Runnable task, long delayNanos);

  /**
   * Runs the task every period, the first time one period from now, until cancelled.
   *
   * @throws RejectedExecutionException if the timer was shut down
   */
  Scheduled scheduleAtFixedRate(Runnable task, long periodNanos);

  /**
   * Runs the task as soon as the timer thread is free.
   *
   * @throws RejectedExecutionException if the timer was shut down
   */
  void execute(Runnable task);

  /** A task the timer will run, until it is cancelled. */
  interface Scheduled {
    /** Cancels the task if it has not run yet (a periodic task: no further run). */
    void cancel();

    /** Whether the task has run (a one-shot task) or was cancelled. */
    boolean isDone();
  }
}
