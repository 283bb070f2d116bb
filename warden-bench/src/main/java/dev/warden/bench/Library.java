package dev.warden.bench;

import dev.warden.Warden;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The two libraries compared; Warden is always the numerator of a ratio. */
enum Library {
  WARDEN("Warden"),
  REDISSON("Redisson");

  private final String displayName;

  Library(String displayName) {
    this.displayName = displayName;
  }

  /** Returns the name tables and charts show. */
  String displayName() {
    return displayName;
  }

  /** Returns the lower-case name used in keys and the results file. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Connects a fresh client of this library to {@code uri} with its default options, but the lock
   * watchdog timeout when one is given: Warden through {@link Warden#builder()}, Redisson through
   * {@code Redisson.create} with the default single-server configuration and only the address set.
   */
  Contender connect(String uri, Optional<Duration> watchdogTimeout) {
    return switch (this) {
      case WARDEN -> {
        Warden.Builder builder = Warden.builder().uri(uri);
        watchdogTimeout.ifPresent(builder::watchdogTimeout);
        Warden warden = builder.build();
        yield new Contender(warden::lock, warden::fairLock, warden::readWriteLock, warden::close);
      }
      case REDISSON -> {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        watchdogTimeout.ifPresent(timeout -> config.setLockWatchdogTimeout(timeout.toMillis()));
        RedissonClient redisson = Redisson.create(config);
        yield new Contender(
            redisson::getLock,
            redisson::getFairLock,
            redisson::getReadWriteLock,
            // No quiet period: the next point starts fresh clients at once.
            () -> redisson.shutdown(0, 5, TimeUnit.SECONDS));
      }
    };
  }
}
