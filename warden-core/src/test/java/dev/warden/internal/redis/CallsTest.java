package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.Timer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link Calls#pause}: a pause ends when the timer says so, or when Warden is closing. */
class CallsTest {
  private static final long TEN_MS = TimeUnit.MILLISECONDS.toNanos(10);

  /** A timer whose tasks the test runs by hand, from any thread. */
  private static final class HandTimer implements Timer {
    record Task(Runnable task, long delayNanos, AtomicBoolean cancelled) {}

    final BlockingQueue<Task> scheduled = new LinkedBlockingQueue<>();
    volatile boolean shutDown;

    @Override
    public Scheduled schedule(Runnable task, long delayNanos) {
      if (shutDown) {
        throw new RejectedExecutionException("shut down");
      }
      AtomicBoolean cancelled = new AtomicBoolean();
      scheduled.add(new Task(task, delayNanos, cancelled));
      return new Scheduled() {
        @Override
        public void cancel() {
          cancelled.set(true);
        }

        @Override
        public boolean isDone() {
          return cancelled.get();
        }
      };
    }

    @Override
    public Scheduled scheduleAtFixedRate(Runnable task, long periodNanos) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void execute(Runnable task) {
      throw new UnsupportedOperationException();
    }

    Task next() throws InterruptedException {
      Task task = scheduled.poll(10, TimeUnit.SECONDS);
      assertThat(task).as("a task scheduled on the timer").isNotNull();
      return task;
    }
  }

  @Test
  void aPauseLastsUntilTheTimerRunsItsTask() throws Exception {
    HandTimer timer = new HandTimer();
    CompletableFuture<Boolean> paused =
        CompletableFuture.supplyAsync(() -> Calls.pause(timer, TEN_MS));

    HandTimer.Task wakeUp = timer.next();
    assertThat(wakeUp.delayNanos()).isEqualTo(TEN_MS);
    assertThat(paused).isNotDone();
    wakeUp.task().run();
    assertThat(paused.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anInterruptEndsThePauseCancelsItsTaskAndKeepsTheFlag() throws Exception {
    HandTimer timer = new HandTimer();
    AtomicReference<Thread> pausing = new AtomicReference<>();
    CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
    CompletableFuture<Boolean> paused =
        CompletableFuture.supplyAsync(
            () -> {
              pausing.set(Thread.currentThread());
              boolean result = Calls.pause(timer, TEN_MS);
              flagKept.complete(Thread.interrupted());
              return result;
            });

    HandTimer.Task wakeUp = timer.next();
    pausing.get().interrupt();
    assertThat(paused.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(flagKept.get()).isTrue();
    assertThat(wakeUp.cancelled()).isTrue();
  }

  @Test
  void aTimerThatWasShutDownEndsThePauseAtOnce() {
    HandTimer timer = new HandTimer();
    timer.shutDown = true;
    try {
      assertThat(Calls.pause(timer, TEN_MS)).isFalse();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}
