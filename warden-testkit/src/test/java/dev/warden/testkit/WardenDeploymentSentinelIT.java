package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A class on a Sentinel set: the set and Wardens reaching it are injected, and cleaned per test.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WardenDeploymentSentinelIT {
  private static String uri;

  @Test
  @Order(1)
  void injectsTheSetAndAWardenOnItsMasterThatLeavesAHold(RedisSentinels set, Warden warden) {
    uri = set.uri();
    DistributedLock lock = warden.lock("left-held");
    lock.lock();
    assertThat(set.master().redis().exists("warden:{left-held}:lock")).isOne();
  }

  @Test
  @Order(2)
  void theNextTestGetsTheSameSetWithNoKeysOnItsMaster(RedisSentinels set, WardenFactory wardens) {
    assertThat(set.uri()).isEqualTo(uri);
    assertThat(set.master().redis().dbsize()).isZero();
    assertThat(wardens.create().lock("left-held").isLocked()).isFalse();
  }
}
