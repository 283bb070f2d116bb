package dev.warden.internal.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** The test fixture itself: tasks run in due order, on the advancing thread, at their due time. */
class VirtualTimeTest {
  private final VirtualTime time = new VirtualTime(0);
  private final List<String> ran = new ArrayList<>();

  private Runnable record(String name) {
    return () -> ran.add(name + "@" + time.nanoTime());
  }

  @Test
  void tasksRunInOrderOfDueTimeAtTheirDueTimeAndOnlyWhenTheClockPassesThem() {
    time.schedule(record("late"), 30);
    time.schedule(record("early"), 10);
    time.schedule(record("tie"), 10);
    time.advance(Duration.ofNanos(9));
    assertThat(ran).isEmpty();
    time.advance(Duration.ofNanos(21));
    assertThat(ran).containsExactly("early@10", "tie@10", "late@30");
    assertThat(time.nanoTime()).isEqualTo(30);
    assertThat(time.pending()).isZero();
  }

  @Test
  void aPeriodicTaskRunsEveryPeriodUntilCancelled() {
    Timer.Scheduled ticker = time.scheduleAtFixedRate(record("tick"), 10);
    time.advance(Duration.ofNanos(35));
    assertThat(ran).containsExactly("tick@10", "tick@20", "tick@30");
    assertThat(ticker.isDone()).isFalse();
    assertThat(time.pending()).isOne();
    ticker.cancel();
    assertThat(ticker.isDone()).isTrue();
    time.advance(Duration.ofNanos(100));
    assertThat(ran).hasSize(3);
    assertThat(time.pending()).isZero();
  }

  @Test
  void aTaskScheduledByARunningTaskRunsInTheSameAdvanceWhenItFallsDue() {
    time.schedule(() -> time.schedule(record("second"), 5), 10);
    time.advance(Duration.ofNanos(20));
    assertThat(ran).containsExactly("second@15");
  }

  @Test
  void executeRunsTheTaskOnTheNextAdvanceNotInsideTheCall() {
    time.execute(record("now"));
    assertThat(ran).isEmpty();
    time.runDue();
    assertThat(ran).containsExactly("now@0");
  }

  @Test
  void cancelAndIsDoneTellTheTruth() {
    Timer.Scheduled once = time.schedule(record("once"), 10);
    Timer.Scheduled cancelled = time.schedule(record("cancelled"), 10);
    assertThat(once.isDone()).isFalse();
    cancelled.cancel();
    assertThat(cancelled.isDone()).isTrue();
    assertThat(time.pending()).isOne();
    time.advance(Duration.ofNanos(10));
    assertThat(once.isDone()).isTrue();
    assertThat(ran).containsExactly("once@10");
  }

  @Test
  void aShutDownTimerRejectsNewTasks() {
    time.shutdown();
    assertThatThrownBy(() -> time.schedule(record("x"), 1))
        .isInstanceOf(RejectedExecutionException.class);
  }
}
