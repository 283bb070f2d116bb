package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The errors a user sees on bad input: each names the argument and its value. */
@ExtendWith(WardenExtension.class)
class BadInputIT {

  @Test
  void badLockNamesAreRejectedNamingTheValue(Warden warden) {
    assertThatThrownBy(() -> warden.lock(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be null or blank: 'null'");
    assertThatThrownBy(() -> warden.lock(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be null or blank: ''");
    assertThatThrownBy(() -> warden.lock("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be null or blank: '  '");
    assertThatThrownBy(() -> warden.lock("a{b}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not contain '{' or '}'")
        .hasMessageContaining("'a{b}'");
  }

  @Test
  void negativeWaitsAndNonPositiveLeasesAreRejectedNamingTheValue(Warden warden) {
    DistributedLock lock = warden.lock("args");
    assertThatThrownBy(() -> lock.tryLock(-1, 10, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("waitTime must not be negative: -1 SECONDS");
    assertThatThrownBy(() -> lock.tryLock(1, 0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseTime must be positive: 0 SECONDS");
    assertThatThrownBy(() -> lock.lock(-5, TimeUnit.MILLISECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseTime must be positive: -5 MILLISECONDS");
    assertThatThrownBy(() -> lock.lockInterruptibly(10, TimeUnit.MICROSECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("leaseTime must be at least 1 millisecond: 10 MICROSECONDS");
    assertThatThrownBy(() -> lock.lock(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unit must not be null");
    assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("waitTime must not be negative: PT-1S");
    assertThatThrownBy(() -> lock.tryAcquire(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("waitTime must not be null");
    assertThatThrownBy(() -> lock.acquireAsync(Duration.ofMillis(-3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("waitTime must not be negative: PT-0.003S");
    assertThat(lock.isLocked()).as("no rejected call touched Redis state").isFalse();
  }

  @Test
  void aKeyOfAnotherTypeUnderTheLocksNameIsReportedAndLeftAlone(RedisServer redis, Warden warden) {
    redis.redis().set("warden:{taken}:lock", "somebody else's value");
    DistributedLock lock = warden.lock("taken");
    assertThatThrownBy(lock::tryLock)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("lock 'taken'")
        .hasMessageContaining("not a Warden object");
    assertThatThrownBy(lock::forceUnlock)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("lock 'taken'");
    assertThatThrownBy(lock::isLocked).isInstanceOf(WardenException.class);
    assertThat(redis.redis().get("warden:{taken}:lock")).isEqualTo("somebody else's value");
  }

  @Test
  void badUrisAndOptionsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> Warden.connect(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redisUri must not be null or blank: null");
    assertThatThrownBy(() -> Warden.connect("http://example"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http://example");
    assertThatThrownBy(() -> Warden.builder().watchdogTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("watchdogTimeout must be at least PT0.03S: PT0S");
    assertThatThrownBy(() -> Warden.builder().commandTimeout(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("commandTimeout must be at least PT0.001S: null");
    assertThatThrownBy(() -> Warden.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("uri");
  }

  @Test
  void connectingToAPortWhereNoRedisListensFailsWithWardenException() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String uri = "redis://127.0.0.1:" + port;
    assertThatThrownBy(() -> Warden.connect(uri))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("cannot connect to Redis")
        .hasMessageContaining(String.valueOf(port));
  }

  @Test
  void aClosedWardenSaysSoForEveryAcquisitionInsteadOfAnExecutorsRejection(WardenFactory more) {
    Warden closed = more.create();
    DistributedLock lock = closed.lock("after-close");
    closed.close();
    assertThatThrownBy(lock::tryLock)
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the Warden is closed");
    assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the Warden is closed");
    assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the Warden is closed");
    assertThatThrownBy(() -> closed.semaphore("after-close").tryAcquire(1, TimeUnit.SECONDS))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the Warden is closed");
  }
}
