package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DeploymentReport;
import dev.warden.DeploymentReport.Status;
import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The on-Redis format marker (docs/operations.md, "Upgrades"): {@code build()} records this
 * version's format; a marker that a newer Warden left, whose data this version would misread,
 * refuses the start naming it, while a newer format that shares its data with this version is
 * accepted and kept; {@code check()} ({@code warden doctor}) reads the marker and writes nothing.
 */
@ExtendWith(WardenExtension.class)
class DataFormatIT {
  private static final String MARKER = "warden:{warden-format}:format";

  @BeforeEach
  void clean(RedisServer redis) {
    redis.redis().flushall();
  }

  @Test
  void buildRecordsThisVersionsFormat(RedisServer redis) {
    try (Warden warden = Warden.connect(redis.uri())) {
      DistributedLock lock = warden.lock("formatted");
      assertThat(lock.tryLock()).isTrue();
      lock.unlock();
    }
    assertThat(redis.redis().hgetall(MARKER)).isEqualTo(Map.of("format", "2", "since", "1"));
    assertThat(redis.redis().pttl(MARKER)).as("the marker does not expire").isEqualTo(-1L);
  }

  @Test
  void aNewerFormatThisVersionWouldMisreadIsRefusedAtBuild(RedisServer redis) {
    redis.redis().hset(MARKER, Map.of("format", "3", "since", "3"));
    assertThatThrownBy(() -> Warden.connect(redis.uri()))
        .isExactlyInstanceOf(WardenException.class)
        .hasMessageContaining("on-Redis data format")
        .hasMessageContaining("format 3 recorded, shared by clients of format 3 and later")
        .hasMessageContaining("this version (format 2)")
        .hasMessageContaining("docs/operations.md 'Upgrades'");
    DeploymentReport report = Warden.builder().uri(redis.uri()).check();
    assertThat(report.refused())
        .extracting(DeploymentReport.Check::name)
        .containsExactly("on-Redis data format");
    assertThat(redis.redis().hgetall(MARKER))
        .as("left as the newer client wrote it")
        .isEqualTo(Map.of("format", "3", "since", "3"));
  }

  @Test
  void aNewerFormatThatSharesItsDataIsAcceptedAndKept(RedisServer redis) {
    redis.redis().hset(MARKER, Map.of("format", "3", "since", "2"));
    try (Warden warden = Warden.connect(redis.uri())) {
      assertThat(warden.lock("shared").tryLock()).isTrue();
    }
    assertThat(redis.redis().hgetall(MARKER)).isEqualTo(Map.of("format", "3", "since", "2"));
  }

  @Test
  void anOlderFormatIsRaisedToThisOne(RedisServer redis) {
    redis.redis().hset(MARKER, Map.of("format", "1", "since", "1"));
    Warden.connect(redis.uri()).close();
    assertThat(redis.redis().hgetall(MARKER)).isEqualTo(Map.of("format", "2", "since", "1"));
  }

  @Test
  void aFormatThatSharesWithOlderOnesNeverLowersTheBarOfOneThatDoesNot(RedisServer redis) {
    String[] marker = {MARKER};
    // format 4 shares its data with format 3 and later only; a client of format 5, which shares
    // with format 1 and later, starts while format 4's may still run
    LuaScripts.run(redis.redis(), "format-mark", marker, "4", "3", "1");
    LuaScripts.run(redis.redis(), "format-mark", marker, "5", "1", "1");
    assertThat(redis.redis().hgetall(MARKER)).isEqualTo(Map.of("format", "5", "since", "3"));
    assertThatThrownBy(() -> Warden.connect(redis.uri()))
        .as("format 4's data is there, which this version (format 2) would misread")
        .isExactlyInstanceOf(WardenException.class)
        .hasMessageContaining("on-Redis data format");
    // the other order: format 5 first, then a client of format 4
    redis.redis().flushall();
    LuaScripts.run(redis.redis(), "format-mark", marker, "5", "1", "1");
    LuaScripts.run(redis.redis(), "format-mark", marker, "4", "3", "1");
    assertThat(redis.redis().hgetall(MARKER)).isEqualTo(Map.of("format", "5", "since", "3"));
    assertThatThrownBy(() -> Warden.connect(redis.uri()))
        .isExactlyInstanceOf(WardenException.class)
        .hasMessageContaining("on-Redis data format");
  }

  @Test
  void checkReadsTheMarkerAndWritesNothing(RedisServer redis) {
    DeploymentReport report = Warden.builder().uri(redis.uri()).check();
    assertThat(report.checks())
        .filteredOn(check -> check.name().equals("on-Redis data format"))
        .singleElement()
        .extracting(DeploymentReport.Check::status)
        .isEqualTo(Status.OK);
    assertThat(redis.redis().exists(MARKER)).isZero();
  }
}
