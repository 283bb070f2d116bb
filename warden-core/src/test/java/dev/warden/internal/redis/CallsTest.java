package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.WardenException;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import dev.warden.internal.base.VirtualTime;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link Calls#pause}: a pause ends when the timer says so, or when Warden is closing. {@link
 * Calls#retrying}: transient failures are sent again after a back-off on the timer, for up to the
 * command timeout, without blocking a thread.
 */
class CallsTest {
  private static final long TEN_MS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final Settings SETTINGS =
      new Settings(Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMillis(200));

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

  @Test
  void aTransientFailureIsSentAgainAfterABackOffOnTheTimer() throws Exception {
    VirtualTime time = new VirtualTime();
    Calls calls = new Calls(SETTINGS, time, time, () -> false);
    List<Long> sentAt = new ArrayList<>();
    long start = time.nanoTime();

    CompletableFuture<String> reply =
        calls.retrying(
            "lock 'a'",
            "unlock",
            () -> {
              sentAt.add(time.nanoTime() - start);
              return sentAt.size() < 3
                  ? CompletableFuture.failedFuture(new RedisCommandTimeoutException("slow"))
                  : CompletableFuture.completedFuture("ok");
            },
            () -> {});

    // the first call is sent at once, on the caller's thread; the retries wait on the timer
    assertThat(sentAt).containsExactly(0L);
    assertThat(reply).isNotDone();
    time.advance(Duration.ofMillis(10));
    assertThat(sentAt).containsExactly(0L, TEN_MS);
    time.advance(Duration.ofMillis(20));
    assertThat(sentAt).containsExactly(0L, TEN_MS, 3 * TEN_MS);
    assertThat(reply.get()).isEqualTo("ok");
  }

  @Test
  void retriesStopAfterTheCommandTimeoutWithAWardenExceptionNamingTheObject() {
    VirtualTime time = new VirtualTime();
    Calls calls = new Calls(SETTINGS, time, time, () -> false);
    List<Long> inDoubt = new ArrayList<>();

    CompletableFuture<String> reply =
        calls.retrying(
            "lock 'a'",
            "unlock",
            () -> CompletableFuture.failedFuture(new RedisCommandTimeoutException("slow")),
            () -> inDoubt.add(time.nanoTime()));

    time.advance(Duration.ofSeconds(2));
    assertThat(reply).isCompletedExceptionally();
    assertThatThrownBy(reply::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("lock 'a'")
        .hasMessageContaining("unlock");
    // backing off 10, 20, 40, ... 200 ms: about a dozen tries within the second, each in doubt
    assertThat(inDoubt).hasSizeBetween(6, 12);
  }

  @Test
  void aFinalFailureIsNotRetried() {
    VirtualTime time = new VirtualTime();
    Calls calls = new Calls(SETTINGS, time, time, () -> false);
    List<Integer> sent = new ArrayList<>();

    CompletableFuture<String> reply =
        calls.retrying(
            "lock 'a'",
            "unlock",
            () -> {
              sent.add(1);
              return CompletableFuture.failedFuture(
                  new RedisCommandExecutionException("ERR wrong number of arguments"));
            },
            () -> {});

    time.advance(Duration.ofSeconds(2));
    assertThat(sent).hasSize(1);
    assertThatThrownBy(reply::get).cause().isInstanceOf(WardenException.class);
  }

  @Test
  void aClosedClientStopsRetrying() {
    VirtualTime time = new VirtualTime();
    AtomicBoolean closed = new AtomicBoolean();
    Calls calls = new Calls(SETTINGS, time, time, closed::get);
    List<Integer> sent = new ArrayList<>();

    CompletableFuture<String> reply =
        calls.retrying(
            "lock 'a'",
            "unlock",
            () -> {
              sent.add(1);
              closed.set(true);
              return CompletableFuture.failedFuture(new RedisCommandTimeoutException("slow"));
            },
            () -> {});

    assertThat(reply).isCompletedExceptionally();
    time.advance(Duration.ofSeconds(2));
    assertThat(sent).hasSize(1);
  }

  @Test
  void aCallThatThrowsAtOnceFailsTheFutureInsteadOfTheCaller() {
    VirtualTime time = new VirtualTime();
    Calls calls = new Calls(SETTINGS, time, time, () -> false);

    CompletableFuture<String> reply =
        calls.retrying(
            "lock 'a'",
            "unlock",
            () -> {
              throw new IllegalStateException("not connected");
            },
            () -> {});

    assertThatThrownBy(reply::get).cause().isInstanceOf(IllegalStateException.class);
  }
}
