package dev.warden.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code warden demo --sentinel --failover} and {@code --cluster --failover}, as
 * docs/getting-started.md shows them: the lock's master fails over half-way through the run and the
 * verdict still shows the exact count and strictly rising tokens. Before, a worker stopped at the
 * first call that failed while the failover was under way (its increments then counted in the
 * counter but not in the acquisitions), and Sentinel's forced failover could lose holds.
 */
class DemoFailoverIT {
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();

  private int run(String... args) {
    PrintStream both = new PrintStream(output, true, UTF_8);
    return Main.run(args, both, both);
  }

  @ParameterizedTest
  @CsvSource({
    "--sentinel, 'Failover: SENTINEL FAILOVER once the replicas had every write'",
    "--cluster, 'Failover: CLUSTER FAILOVER of the shard serving'"
  })
  void theCountIsExactAcrossAFailoverThatLosesNoWrite(String deployment, String failover) {
    assertThat(run("demo", deployment, "--failover", "--workers", "2", "--seconds", "6"))
        .as(output.toString(UTF_8))
        .isZero();
    assertThat(output.toString(UTF_8))
        .contains(failover)
        .contains("VERDICT: PASS")
        .doesNotContain("leases lost");
  }
}
