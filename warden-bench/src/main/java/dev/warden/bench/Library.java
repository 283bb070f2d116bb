package dev.warden.bench;

import dev.warden.Warden;
import java.time.Duration;
import java.util.List;
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

  /** How a benchmark URI names a Redis Cluster: this prefix, then seed URIs and commas. */
  static final String CLUSTER = "cluster:";

  /** Returns the benchmark URI of a Redis Cluster with these seeds. */
  static String clusterUri(List<String> seeds) {
    return CLUSTER + String.join(",", seeds);
  }

  /** Returns the seeds of a cluster URI; empty for one server's URI. */
  static List<String> clusterSeeds(String uri) {
    return uri.startsWith(CLUSTER)
        ? List.of(uri.substring(CLUSTER.length()).split(",", -1))
        : List.of();
  }

  /**
   * Connects a fresh client of this library to {@code uri} with its default options, but the lock
   * watchdog timeout when one is given: Warden through {@link Warden#builder()}, Redisson through
   * {@code Redisson.create} with the default single-server configuration and only the address set,
   * or for a cluster URI ({@link #clusterUri}) its cluster configuration with only the seeds set.
   */
  Contender connect(String uri, Optional<Duration> watchdogTimeout) {
    List<String> seeds = clusterSeeds(uri);
    return switch (this) {
      case WARDEN -> {
        Warden.Builder builder =
            seeds.isEmpty()
                ? Warden.builder().uri(uri)
                : Warden.builder().cluster(seeds.toArray(String[]::new));
        watchdogTimeout.ifPresent(builder::watchdogTimeout);
        Warden warden = builder.build();
        yield new Contender(
            warden::lock,
            warden::fairLock,
            warden::readWriteLock,
            warden::close,
            watchdog -> connect(uri, watchdog));
      }
      case REDISSON -> {
        Config config = new Config();
        if (seeds.isEmpty()) {
          config.useSingleServer().setAddress(uri);
        } else {
          config.useClusterServers().addNodeAddress(seeds.toArray(String[]::new));
        }
        watchdogTimeout.ifPresent(timeout -> config.setLockWatchdogTimeout(timeout.toMillis()));
        RedissonClient redisson = Redisson.create(config);
        yield new Contender(
            redisson::getLock,
            redisson::getFairLock,
            redisson::getReadWriteLock,
            // No quiet period: the next point starts fresh clients at once.
            () -> redisson.shutdown(0, 5, TimeUnit.SECONDS),
            watchdog -> connect(uri, watchdog));
      }
    };
  }
}
