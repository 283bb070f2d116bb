package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * W8's machinery end to end, as a smoke test with no timed assertion: a quick run's first point
 * (100 waiters in one worker JVM) on Warden against a real redis-server: the holder keeps the lock
 * through the window, then every waiter takes it once, and nobody held it at the same time.
 */
class W8DeepQueueIT {

  @Test
  void everyWaiterTakesTheLockOnceAfterTheHolderReleasesItAndNeverTwoAtOnce()
      throws InterruptedException {
    Settings quick = Settings.parse(List.of("--quick"), Path.of("unused")).orElseThrow();
    Point point = new W8DeepQueue().points(quick).get(0);
    assertThat(point.label()).isEqualTo("100 in 1 JVM");
    try (RedisServer server = RedisServer.start()) {
      Trial trial =
          ((Point.Launcher) point.starter())
              .launch(Library.WARDEN, server.uri(), "warden-bench:it:w8");
      Tally tally;
      try {
        trial.await(Duration.ofMillis(200));
        trial.openWindow();
        trial.await(Duration.ofMillis(500));
        trial.closeWindow();
      } finally {
        tally = trial.finish(Duration.ofSeconds(30));
      }

      assertThat(tally.inRun("drained")).isEqualTo(100);
      assertThat(tally.inRun("drain_complete")).isEqualTo(1);
      assertThat(tally.inRun("overlaps")).isZero();
      assertThat(tally.inRun("lost_increments")).isZero();
      assertThat(tally.inRun("sections")).isEqualTo(101); // the waiters' and the holder's
      assertThat(tally.inRun("drain_ns")).isPositive();
    }
  }
}
