package dev.warden.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Micrometer guide's example, as shown there (DocSnippetsTest compares the two). */
@ExtendWith(WardenExtension.class)
class MetricsExampleIT {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void theExampleBindsTheMetersAndTagsOnlyTheNamesItLists(RedisServer redis) {
    String redisUri = redis.uri();
    // example metrics: begin
    Warden warden = Warden.connect(redisUri);
    WardenMetrics.of(warden).bindTo(registry); // or declare it as a MeterBinder bean
    // tag a known, bounded set of names (every other name is tagged "other"):
    WardenMetrics.builder(warden).lockNames(List.of("nightly-report")).build().bindTo(registry);
    // example metrics: end
    try (warden) {
      for (String name : List.of("nightly-report", "invoice-42")) {
        DistributedLock lock = warden.lock(name);
        lock.lock();
        lock.unlock();
      }
    }

    assertThat(registry.find("warden.acquire").tag("name", "nightly-report").timers()).hasSize(1);
    assertThat(registry.find("warden.acquire").tag("name", WardenMetrics.OTHER_NAMES).timers())
        .hasSize(1);
    assertThat(registry.find("warden.acquire").tagKeys("name").timers()).hasSize(2);
    assertThat(registry.find("warden.acquire").timers())
        .as("the first binding's timer has no name tag")
        .hasSize(3);
  }
}
