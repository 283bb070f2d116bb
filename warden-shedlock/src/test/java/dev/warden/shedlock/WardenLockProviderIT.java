package dev.warden.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * ShedLock's own published provider suite (shedlock-test-support 6.6.1: every test of {@link
 * AbstractExtensibleLockProviderIntegrationTest} and its base, the fuzz tester included), run
 * against a real redis-server.
 */
class WardenLockProviderIT extends AbstractExtensibleLockProviderIntegrationTest {
  private static RedisServer redis;
  private static Warden warden;
  private static WardenLockProvider provider;

  @BeforeAll
  static void start() {
    redis = RedisServer.start();
    warden = Warden.connect(redis.uri());
    provider = new WardenLockProvider(warden, "test:shedlock:");
  }

  @AfterAll
  static void stop() {
    try {
      warden.close();
    } finally {
      redis.close();
    }
  }

  @BeforeEach
  void flush() {
    redis.flushAll();
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    return provider;
  }

  @Override
  protected void assertUnlocked(String lockName) {
    assertThat(warden.lock(provider.lockName(lockName)).isLocked())
        .as("%s is unlocked", lockName)
        .isFalse();
  }

  @Override
  protected void assertLocked(String lockName) {
    assertThat(warden.lock(provider.lockName(lockName)).isLocked())
        .as("%s is locked", lockName)
        .isTrue();
  }
}
