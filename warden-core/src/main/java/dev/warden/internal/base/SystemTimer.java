package dev.warden.internal.base;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The {@link Timer} of a Warden: one daemon thread, {@code warden-timer-N}. */
public final class SystemTimer implements Timer {
  private static final AtomicInteger threads = new AtomicInteger();

  private final ScheduledThreadPoolExecutor executor;

  /** Starts the timer's thread. */
  public SystemTimer() {
    executor = new ScheduledThreadPoolExecutor(1, SystemTimer::newThread);
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public Scheduled schedule(Runnable task, long delayNanos) {
    return new Task(executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS));
  }

  @Override
  public Scheduled scheduleAtFixedRate(Runnable task, long periodNanos) {
    return new Task(
        executor.scheduleAtFixedRate(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS));
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  /** Stops the thread; tasks not yet run are dropped. */
  public void shutdown() {
    executor.shutdownNow();
  }

  private static Thread newThread(Runnable task) {
    Thread thread = new Thread(task, "warden-timer-" + threads.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }

  private record Task(ScheduledFuture<?> future) implements Scheduled {
    @Override
    public void cancel() {
      future.cancel(false);
    }

    @Override
    public boolean isDone() {
      return future.isDone();
    }
  }
}
