package dev.warden.spring.boot;

import dev.warden.WakeUps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code warden.*} properties: where the auto-configured {@link dev.warden.Warden} connects and
 * its options. Without {@code warden.uri} or {@code warden.cluster.nodes} it reuses the
 * application's {@code spring.data.redis.*} connection (standalone, Sentinel or Cluster).
 *
 * @since 0.2
 */
@ConfigurationProperties("warden")
public class WardenProperties {
  /** Whether to auto-configure a Warden (and the @WardenLocked support). */
  private boolean enabled = true;

  /**
   * Redis URI in Lettuce's syntax (redis://, rediss://, redis-sentinel://h1:p1,h2:p2#master). When
   * set, spring.data.redis.* is not used.
   */
  private String uri;

  /** Redis Cluster settings. */
  private final Cluster cluster = new Cluster();

  // The three defaults are Warden's (Warden.DEFAULT_WATCHDOG_TIMEOUT and the others), written as
  // Duration.ofX(literal) because Spring Boot's configuration processor reads only that form into
  // the metadata IDEs show; WardenAutoConfigurationTest checks that they stay Warden's.

  /** Lease of holds taken without an explicit lease; renewed every third of it while held. */
  private Duration watchdogTimeout = Duration.ofSeconds(30);

  /** How long one Redis call may take before it fails with a WardenException. */
  private Duration commandTimeout = Duration.ofSeconds(5);

  /** How often a waiting acquirer re-checks when no release message arrives. */
  private Duration recheckInterval = Duration.ofMillis(200);

  /**
   * Who publishes the wake-ups of releases: auto (the scripts where the server allows PUBLISH in
   * scripts, else the client), from-scripts, or from-client (for proxies that refuse PUBLISH in
   * scripts).
   */
  private WakeUps wakeUps = WakeUps.AUTO;

  /**
   * Prefix of every key and channel Warden uses: "billing" puts them under billing:warden:*. Empty:
   * warden:*.
   */
  private String keyPrefix;

  /**
   * How long the lease keeper renews a hold at most; past it the hold expires and its holder is
   * told. Empty: no limit.
   */
  private Duration maxHoldTime;

  /**
   * How long a semaphore or count-down latch lives after its last operation (a waiter's looks keep
   * it alive). Empty: for ever.
   */
  private Duration synchronizerIdleExpiry;

  /**
   * Whether the Warden runs on the application's Lettuce ClientResources bean when there is one
   * (spring-boot-data-redis makes one); its reconnect delay then applies.
   */
  private boolean shareClientResources = true;

  /** How the Warden closes when the context stops. */
  private final Shutdown shutdown = new Shutdown();

  /** TLS settings. */
  private final Ssl ssl = new Ssl();

  /** The @WardenLocked annotation's support. */
  private final Annotation annotation = new Annotation();

  /** Warden's Micrometer meters (with warden-micrometer and Micrometer present). */
  private final Metrics metrics = new Metrics();

  private final Observations observations = new Observations();

  /** Creates the properties with their defaults. */
  public WardenProperties() {}

  /**
   * Returns whether to auto-configure a Warden.
   *
   * @return whether it is enabled
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets whether to auto-configure a Warden.
   *
   * @param enabled whether it is enabled
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * Returns the Redis URI, or null to reuse spring.data.redis.*.
   *
   * @return the URI, or null
   */
  public String getUri() {
    return uri;
  }

  /**
   * Sets the Redis URI.
   *
   * @param uri the URI, in Lettuce's syntax
   */
  public void setUri(String uri) {
    this.uri = uri;
  }

  /**
   * Returns the Redis Cluster settings.
   *
   * @return the cluster settings
   */
  public Cluster getCluster() {
    return cluster;
  }

  /**
   * Returns the watchdog timeout.
   *
   * @return the lease of renewed holds
   */
  public Duration getWatchdogTimeout() {
    return watchdogTimeout;
  }

  /**
   * Sets the watchdog timeout.
   *
   * @param watchdogTimeout the lease of renewed holds
   */
  public void setWatchdogTimeout(Duration watchdogTimeout) {
    this.watchdogTimeout = watchdogTimeout;
  }

  /**
   * Returns the command timeout.
   *
   * @return how long one Redis call may take
   */
  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  /**
   * Sets the command timeout.
   *
   * @param commandTimeout how long one Redis call may take
   */
  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  /**
   * Returns the recheck interval.
   *
   * @return how often a waiter re-checks
   */
  public Duration getRecheckInterval() {
    return recheckInterval;
  }

  /**
   * Sets the recheck interval.
   *
   * @param recheckInterval how often a waiter re-checks
   */
  public void setRecheckInterval(Duration recheckInterval) {
    this.recheckInterval = recheckInterval;
  }

  /**
   * Returns who publishes wake-ups.
   *
   * @return the mode ({@link WakeUps#AUTO} by default)
   * @since 0.2
   */
  public WakeUps getWakeUps() {
    return wakeUps;
  }

  /**
   * Sets who publishes wake-ups ({@code warden.wake-ups=auto|from-scripts|from-client}).
   *
   * @param wakeUps the mode, as {@link dev.warden.Warden.Builder#wakeUps(WakeUps)} takes it
   * @since 0.2
   */
  public void setWakeUps(WakeUps wakeUps) {
    this.wakeUps = wakeUps;
  }

  /**
   * Returns the key prefix.
   *
   * @return the prefix, or null for none
   * @since 0.2
   */
  public String getKeyPrefix() {
    return keyPrefix;
  }

  /**
   * Sets the key prefix.
   *
   * @param keyPrefix the prefix, or null or empty for none
   * @since 0.2
   */
  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  /**
   * Returns the maximum hold time.
   *
   * @return the limit, or null for none
   * @since 0.2
   */
  public Duration getMaxHoldTime() {
    return maxHoldTime;
  }

  /**
   * Sets the maximum hold time.
   *
   * @param maxHoldTime the limit, or null for none
   * @since 0.2
   */
  public void setMaxHoldTime(Duration maxHoldTime) {
    this.maxHoldTime = maxHoldTime;
  }

  /**
   * Returns the synchronizers' idle expiry.
   *
   * @return the expiry, or null for none
   * @since 0.2
   */
  public Duration getSynchronizerIdleExpiry() {
    return synchronizerIdleExpiry;
  }

  /**
   * Sets the synchronizers' idle expiry.
   *
   * @param synchronizerIdleExpiry the expiry, or null for none
   * @since 0.2
   */
  public void setSynchronizerIdleExpiry(Duration synchronizerIdleExpiry) {
    this.synchronizerIdleExpiry = synchronizerIdleExpiry;
  }

  /**
   * Returns whether the application's ClientResources bean is shared.
   *
   * @return whether it is
   * @since 0.2
   */
  public boolean isShareClientResources() {
    return shareClientResources;
  }

  /**
   * Sets whether the application's ClientResources bean is shared.
   *
   * @param shareClientResources whether it is
   * @since 0.2
   */
  public void setShareClientResources(boolean shareClientResources) {
    this.shareClientResources = shareClientResources;
  }

  /**
   * Returns the shutdown settings.
   *
   * @return the shutdown settings
   * @since 0.2
   */
  public Shutdown getShutdown() {
    return shutdown;
  }

  /**
   * Returns the TLS settings.
   *
   * @return the TLS settings
   * @since 0.2
   */
  public Ssl getSsl() {
    return ssl;
  }

  /**
   * Returns the annotation's settings.
   *
   * @return the annotation's settings
   */
  public Annotation getAnnotation() {
    return annotation;
  }

  /**
   * Returns the metrics settings.
   *
   * @return the metrics settings
   */
  public Metrics getMetrics() {
    return metrics;
  }

  /**
   * Returns the observation (tracing) settings.
   *
   * @return the observation settings
   */
  public Observations getObservations() {
    return observations;
  }

  /** Redis Cluster settings. */
  public static class Cluster {
    /**
     * Seed nodes of a Redis Cluster, as redis://host:port (or rediss://, with credentials if
     * needed) or host:port. When set, Warden connects to that cluster.
     */
    private List<String> nodes = new ArrayList<>();

    /** Creates the settings with no seeds. */
    public Cluster() {}

    /**
     * Returns the seed nodes.
     *
     * @return the seeds, empty when not set
     */
    public List<String> getNodes() {
      return nodes;
    }

    /**
     * Sets the seed nodes.
     *
     * @param nodes the seeds
     */
    public void setNodes(List<String> nodes) {
      this.nodes = nodes;
    }
  }

  /**
   * How the auto-configured Warden closes when the context stops.
   *
   * @since 0.2
   */
  public static class Shutdown {
    /**
     * How long holders may keep their locks once the context stops (after the web server's graceful
     * shutdown): new acquisitions fail, waiters fail at once, and holds still held after it are
     * released and their holders told. 0: released at once.
     */
    private Duration grace = Duration.ofSeconds(10);

    /** Creates the settings with their defaults. */
    public Shutdown() {}

    /**
     * Returns the grace period.
     *
     * @return the grace period
     */
    public Duration getGrace() {
      return grace;
    }

    /**
     * Sets the grace period.
     *
     * @param grace the grace period
     */
    public void setGrace(Duration grace) {
      this.grace = grace;
    }
  }

  /**
   * TLS settings.
   *
   * @since 0.2
   */
  public static class Ssl {
    /**
     * Name of a Spring Boot SSL bundle (spring.ssl.bundle.*) whose trust and key material and
     * protocols Warden's connections use. Empty: spring.data.redis.ssl.bundle when the connection
     * is spring.data.redis's, else the URI's scheme decides (rediss:// with the JVM's trust store).
     */
    private String bundle;

    /** Creates the settings with their defaults. */
    public Ssl() {}

    /**
     * Returns the bundle's name.
     *
     * @return the name, or null
     */
    public String getBundle() {
      return bundle;
    }

    /**
     * Sets the bundle's name.
     *
     * @param bundle the name
     */
    public void setBundle(String bundle) {
      this.bundle = bundle;
    }
  }

  /** The {@code @WardenLocked} annotation's settings. */
  public static class Annotation {
    /** Whether methods annotated with @WardenLocked are locked. */
    private boolean enabled = true;

    /**
     * Order of the @WardenLocked advisor. Lower runs first (outside): the default runs outside the
     * transaction advisor (Ordered.LOWEST_PRECEDENCE), so the lock is released after commit.
     */
    private int order = dev.warden.spring.WardenLockedAdvisor.DEFAULT_ORDER;

    /** Creates the settings with their defaults. */
    public Annotation() {}

    /**
     * Returns whether annotated methods are locked.
     *
     * @return whether it is enabled
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether annotated methods are locked.
     *
     * @param enabled whether it is enabled
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the advisor's order.
     *
     * @return the order
     */
    public int getOrder() {
      return order;
    }

    /**
     * Sets the advisor's order.
     *
     * @param order the order
     */
    public void setOrder(int order) {
      this.order = order;
    }
  }

  /** Warden's Micrometer meters. */
  public static class Metrics {
    /** Whether to bind Warden's meters (warden.acquire, warden.held, ...) to the registry. */
    private boolean enabled = true;

    /**
     * Lock names to tag meters with (tag "name"; every other name is tagged "other"). A small,
     * fixed set: never names made from data, such as invoice ids. Empty: no name tag.
     */
    private List<String> lockNames = new ArrayList<>();

    /** Creates the settings with their defaults. */
    public Metrics() {}

    /**
     * Returns whether Warden's meters are bound.
     *
     * @return whether they are
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether Warden's meters are bound.
     *
     * @param enabled whether they are
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the lock names that get a name tag.
     *
     * @return the names, empty for none
     */
    public List<String> getLockNames() {
      return lockNames;
    }

    /**
     * Sets the lock names that get a name tag.
     *
     * @param lockNames the names
     */
    public void setLockNames(List<String> lockNames) {
      this.lockNames = lockNames;
    }
  }

  /** Warden's Micrometer observations (spans through the application's tracing bridge). */
  public static class Observations {
    /**
     * Whether to emit observations (warden.lock.acquire, warden.lock.hold) when there is a
     * registry.
     */
    private boolean enabled = true;

    /**
     * Lock names whose observations carry the name (high-cardinality "warden.name"). A small, fixed
     * set: never names made from data. Empty: no name.
     */
    private List<String> lockNames = new ArrayList<>();

    /**
     * Whether each hold's observation carries its fencing token (high-cardinality "warden.token").
     */
    private boolean fencingTokens;

    /** Creates the settings with their defaults. */
    public Observations() {}

    /**
     * Returns whether observations are emitted.
     *
     * @return whether they are
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether observations are emitted.
     *
     * @param enabled whether they are
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * Returns the names observations carry.
     *
     * @return the names
     */
    public List<String> getLockNames() {
      return lockNames;
    }

    /**
     * Sets the names observations carry.
     *
     * @param lockNames the names
     */
    public void setLockNames(List<String> lockNames) {
      this.lockNames = lockNames;
    }

    /**
     * Returns whether holds carry their fencing token.
     *
     * @return whether they do
     */
    public boolean isFencingTokens() {
      return fencingTokens;
    }

    /**
     * Sets whether holds carry their fencing token.
     *
     * @param fencingTokens whether they do
     */
    public void setFencingTokens(boolean fencingTokens) {
      this.fencingTokens = fencingTokens;
    }
  }
}
