package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * W7's machinery end to end, as a smoke test with no timed assertion: two worker JVMs of one thread
 * each on Warden's lock against a real redis-server, a short window, and the merged timeline.
 */
class WorkerJvmsIT {

  @Test
  void twoWorkerJvmsTakeTheLockInTurnsAndReportEverySection() throws InterruptedException {
    try (RedisServer server = RedisServer.start()) {
      WorkerJvms trial =
          WorkerJvms.launch(
              Library.WARDEN,
              /* fair= */ false,
              server.uri(),
              2,
              1,
              "warden-bench:it:w7",
              /* quietMillis= */ 5,
              Duration.ofSeconds(1));
      Tally tally;
      try {
        trial.await(Duration.ofMillis(200));
        trial.openWindow();
        trial.await(Duration.ofSeconds(1));
        trial.closeWindow();
      } finally {
        tally = trial.finish(Duration.ofSeconds(30));
      }

      assertThat(tally.inRun("overlaps")).isZero();
      assertThat(tally.inRun("lost_increments")).isZero();
      assertThat(tally.inRun("sections")).isGreaterThanOrEqualTo(tally.inRun("acquisitions"));
      assertThat(tally.inRun("acquisitions"))
          .isPositive()
          .isEqualTo(tally.inRun("process_0") + tally.inRun("process_1"));
      assertThat(tally.histogram("wait").getTotalCount()).isPositive();
      assertThat(tally.inRun("worker_cpu_unknown")).isZero();
      assertThat(tally.inRun("workers")).isEqualTo(2);
    }
  }
}
