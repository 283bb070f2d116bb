package dev.warden.internal.base;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link Clock} and a {@link Timer} in virtual time, for tests: the clock stands still until the
 * test moves it, and scheduled tasks run on the test's own thread, in order of due time (ties in
 * the order they were scheduled), only while {@link #advance} or {@link #advanceTo} moves the clock
 * past them. While a task runs, the clock reads its due time.
 *
 * <p>{@link #execute} does not run the task at once (the caller would re-enter itself, which the
 * real timer thread never does): it is queued as due now, and runs on the next advance, even {@code
 * advance(Duration.ZERO)} ({@link #runDue()}).
 *
 * <p>A periodic task is re-queued one period after its due time each time it ran (fixed rate, as
 * {@link SystemTimer}). A task that throws makes the advance throw: tests should not hide it.
 *
 * <p>Not thread-safe: meant for one test thread, which also completes the futures it controls.
 */
public final class VirtualTime implements Clock, Timer {
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(
          (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private long now;
  private long seq;
  private boolean shutDown;

  /** Starts at an arbitrary non-zero time, as {@link System#nanoTime()} does. */
  public VirtualTime() {
    this(1_000_000_000_000L);
  }

  public VirtualTime(long startNanos) {
    this.now = startNanos;
  }

  @Override
  public long nanoTime() {
    return now;
  }

  /** The virtual time elapsed since {@code startNanos} (a reading of this clock). */
  public Duration since(long startNanos) {
    return Duration.ofNanos(now - startNanos);
  }

  @Override
  public Scheduled schedule(Runnable task, long delayNanos) {
    return enqueue(task, Math.max(0, delayNanos), 0);
  }

  @Override
  public Scheduled scheduleAtFixedRate(Runnable task, long periodNanos) {
    if (periodNanos <= 0) {
      throw new IllegalArgumentException("period " + periodNanos);
    }
    return enqueue(task, periodNanos, periodNanos);
  }

  /** Queues the task as due now: it runs on the next advance, not inside this call. */
  @Override
  public void execute(Runnable task) {
    enqueue(task, 0, 0);
  }

  /** Rejects every task scheduled from now on, as a shut-down {@link SystemTimer} does. */
  public void shutdown() {
    shutDown = true;
    queue.clear();
  }

  /** Moves the clock forward by {@code step}, running every task that falls due on the way. */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("time does not go back: " + step);
    }
    advanceTo(now + step.toNanos());
  }

  /** Moves the clock to {@code targetNanos}, running every task due until then, in order. */
  public void advanceTo(long targetNanos) {
    if (targetNanos - now < 0) {
      throw new IllegalArgumentException("time does not go back: " + (targetNanos - now) + " ns");
    }
    for (Task task = queue.peek();
        task != null && task.due - targetNanos <= 0;
        task = queue.peek()) {
      queue.poll();
      if (task.cancelled) {
        continue;
      }
      now = task.due;
      if (task.period > 0) {
        task.due += task.period;
        queue.add(task); // queued before it runs, so that it may cancel itself
      } else {
        task.ran = true;
      }
      task.runnable.run();
    }
    now = targetNanos;
  }

  /** Runs the tasks due now (those {@link #execute} queued, and any scheduled with no delay). */
  public void runDue() {
    advanceTo(now);
  }

  /** Moves the clock to the next task's due time and runs what is due then; false if none. */
  public boolean runNext() {
    Long next = nextDue();
    if (next == null) {
      return false;
    }
    advanceTo(next);
    return true;
  }

  /** The due time of the next live task, or null when nothing is pending. */
  public Long nextDue() {
    purge();
    Task next = queue.peek();
    return next == null ? null : next.due;
  }

  /** The number of tasks queued and not cancelled (a periodic task counts once). */
  public int pending() {
    purge();
    return queue.size();
  }

  /** The due times of the live tasks, earliest first (for assertion messages). */
  public List<Long> dueTimes() {
    purge();
    List<Task> tasks = new ArrayList<>(queue);
    tasks.sort(queue.comparator());
    List<Long> due = new ArrayList<>();
    for (Task task : tasks) {
      due.add(task.due);
    }
    return due;
  }

  private void purge() {
    queue.removeIf(task -> task.cancelled);
  }

  private Task enqueue(Runnable runnable, long delayNanos, long periodNanos) {
    if (shutDown) {
      throw new RejectedExecutionException("virtual timer shut down");
    }
    Task task = new Task(runnable, now + delayNanos, periodNanos, seq++);
    queue.add(task);
    return task;
  }

  private static final class Task implements Scheduled {
    final Runnable runnable;
    final long period;
    final long seq;
    long due;
    boolean cancelled;
    boolean ran;

    Task(Runnable runnable, long due, long period, long seq) {
      this.runnable = runnable;
      this.due = due;
      this.period = period;
      this.seq = seq;
    }

    @Override
    public void cancel() {
      if (!ran) {
        cancelled = true;
      }
    }

    @Override
    public boolean isDone() {
      return cancelled || ran;
    }
  }
}
