package dev.warden.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The plain-Java ShedLock example of the docs, as written there (DocSnippetsTest compares them).
 */
@ExtendWith(WardenExtension.class)
class ReadmeExampleIT {
  private final AtomicInteger reports = new AtomicInteger();

  private void sendReport() {
    reports.incrementAndGet();
  }

  @Test
  void theReadmeExampleRunsTheJobOnceWhileLockAtLeastForHolds(RedisServer redis) {
    String uri = redis.uri();
    // example shedlock: begin
    try (Warden warden = Warden.connect(uri)) {
      LockProvider provider = new WardenLockProvider(warden); // keys: shedlock:<lock name>
      LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);

      LockConfiguration everyQuarterHour =
          new LockConfiguration(
              ClockProvider.now(), "send-report", Duration.ofMinutes(10), Duration.ofMinutes(1));
      executor.executeWithLock((Runnable) this::sendReport, everyQuarterHour);
    }
    // example shedlock: end

    // another run inside lockAtLeastFor (1 min) is skipped, on this instance or any other
    try (Warden other = Warden.connect(uri)) {
      new DefaultLockingTaskExecutor(new WardenLockProvider(other))
          .executeWithLock(
              (Runnable) this::sendReport,
              new LockConfiguration(
                  ClockProvider.now(),
                  "send-report",
                  Duration.ofMinutes(10),
                  Duration.ofMinutes(1)));
      assertThat(reports).hasValue(1);
      assertThat(other.lock("shedlock:send-report").isLocked()).isTrue();
    }
  }
}
