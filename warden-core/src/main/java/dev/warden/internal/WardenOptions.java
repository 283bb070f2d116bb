package dev.warden.internal;

import dev.warden.Replication;
import dev.warden.TlsOptions;
import dev.warden.WakeUps;
import dev.warden.Warden;
import dev.warden.WardenListener;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Namespace;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of one {@code Warden} as its builder collects them, in one value that {@link
 * WardenRuntime#start} reads once: each checked as it is set ({@link Args}, messages naming the
 * argument and its value), the rest at the start. Unset options keep the defaults that {@link
 * Warden} names ({@link Warden#DEFAULT_WATCHDOG_TIMEOUT} and the others).
 *
 * <p>Not thread-safe, like the builder that fills it.
 */
public final class WardenOptions {
  /** The shortest watchdog lease accepted (renewed every third of it). */
  private static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofMillis(30);

  private static final Duration MIN_SYNC_IDLE_EXPIRY = Duration.ofSeconds(1);

  /**
   * The longest maximum hold time: the lease keeper adds it to a hold's start on the monotonic
   * clock, in nanoseconds, which a longer one overflows (from about 292 years).
   */
  private static final Duration MAX_HOLD_TIME = Duration.ofDays(36_500);

  /** The shortest command timeout and recheck interval. */
  private static final Duration MIN_INTERVAL = Duration.ofMillis(1);

  private String uri;
  private List<String> clusterSeeds = List.of();
  private Duration watchdogTimeout = Warden.DEFAULT_WATCHDOG_TIMEOUT;
  private Duration commandTimeout = Warden.DEFAULT_COMMAND_TIMEOUT;
  private Duration recheckInterval = Warden.DEFAULT_RECHECK_INTERVAL;
  private final List<WardenListener> listeners = new ArrayList<>();
  private TlsOptions tls; // null: TLS only where a URI says rediss://
  private Replication replication = Replication.none();
  private Namespace namespace = Namespace.DEFAULT;
  private Duration maxHoldTime; // null: renewed for as long as held
  private Duration syncIdleExpiry; // null: semaphores and latches never expire
  private RedisCredentialsProvider credentials; // null: the URIs' own
  private ClientResources clientResources; // null: Warden's own
  private WakeUps wakeUps = WakeUps.AUTO;

  /** Sets the address of one server or of Sentinel's master (a Lettuce URI). */
  public void uri(String redisUri) {
    this.uri = Args.text("redisUri", redisUri);
  }

  /** Sets the seeds of a Redis Cluster, replacing those of an earlier call. */
  public void cluster(String... seedUris) {
    this.clusterSeeds = Args.texts("seedUris", seedUris);
  }

  public void watchdogTimeout(Duration watchdogTimeout) {
    this.watchdogTimeout = Args.atLeast("watchdogTimeout", watchdogTimeout, MIN_WATCHDOG_TIMEOUT);
  }

  public void commandTimeout(Duration commandTimeout) {
    this.commandTimeout = Args.atLeast("commandTimeout", commandTimeout, MIN_INTERVAL);
  }

  public void recheckInterval(Duration recheckInterval) {
    this.recheckInterval = Args.atLeast("recheckInterval", recheckInterval, MIN_INTERVAL);
  }

  /** Adds a listener that hears every event of the new instance. */
  public void listener(WardenListener listener) {
    listeners.add(Args.required("listener", listener));
  }

  public void tls(TlsOptions tls) {
    this.tls = Args.required("tls", tls);
  }

  public void replication(Replication replication) {
    this.replication = Args.required("replication", replication);
  }

  /** Authenticates every data-node connection with the provider's credentials. */
  public void credentials(RedisCredentialsProvider credentials) {
    this.credentials = Args.required("credentials", credentials);
  }

  /** Runs every client on the application's resources, which Warden never shuts down. */
  public void clientResources(ClientResources clientResources) {
    this.clientResources = Args.required("clientResources", clientResources);
  }

  RedisCredentialsProvider credentials() {
    return credentials;
  }

  ClientResources clientResources() {
    return clientResources;
  }

  /** Bounds how long the lease keeper renews a hold; checked against the watchdog at the start. */
  public void maxHoldTime(Duration maxHoldTime) {
    Args.atLeast("maxHoldTime", maxHoldTime, MIN_WATCHDOG_TIMEOUT);
    if (maxHoldTime.compareTo(MAX_HOLD_TIME) > 0) {
      throw new IllegalArgumentException(
          "maxHoldTime must be at most 100 years (" + MAX_HOLD_TIME + "): " + maxHoldTime);
    }
    this.maxHoldTime = maxHoldTime;
  }

  /** Lets idle semaphores and latches expire; checked against the recheck interval at the start. */
  public void synchronizerIdleExpiry(Duration idleExpiry) {
    Args.atLeast("idleExpiry", idleExpiry, MIN_SYNC_IDLE_EXPIRY);
    Args.leaseMillis("idleExpiry", idleExpiry); // at most 10000 years: PEXPIRE takes it exactly
    this.syncIdleExpiry = idleExpiry;
  }

  /** Chooses who publishes wake-ups; AUTO lets the capability check choose. */
  public void wakeUps(WakeUps wakeUps) {
    this.wakeUps = Args.required("wakeUps", wakeUps);
  }

  WakeUps wakeUps() {
    return wakeUps;
  }

  /** Puts every key and channel under {@code <keyPrefix>:warden:} ({@link Namespace}). */
  public void keyPrefix(String keyPrefix) {
    this.namespace = Namespace.of(keyPrefix);
  }

  /** Where the keys and channels live. */
  Namespace namespace() {
    return namespace;
  }

  /** The URI of one server or of Sentinel, or null when cluster seeds (or nothing) were set. */
  String uri() {
    return uri;
  }

  /** The cluster's seeds; empty unless set. */
  List<String> clusterSeeds() {
    return clusterSeeds;
  }

  List<WardenListener> listeners() {
    return List.copyOf(listeners);
  }

  TlsOptions tls() {
    return tls;
  }

  /**
   * The settings of these options.
   *
   * @throws IllegalArgumentException if the replication timeout is not below the command timeout,
   *     the maximum hold time is below the watchdog timeout, or the idle expiry below four recheck
   *     intervals or twice the command timeout
   */
  Settings settings() {
    if (maxHoldTime != null && maxHoldTime.compareTo(watchdogTimeout) < 0) {
      throw new IllegalArgumentException(
          "maxHoldTime must be at least the watchdogTimeout ("
              + watchdogTimeout
              + "), the lease a hold is first taken with: "
              + maxHoldTime
              + " (for shorter holds, give the lock an explicit lease)");
    }
    if (syncIdleExpiry != null && syncIdleExpiry.compareTo(recheckInterval.multipliedBy(4)) < 0) {
      throw new IllegalArgumentException(
          "idleExpiry must be at least four recheck intervals ("
              + recheckInterval.multipliedBy(4)
              + "), so that a waiter's looks keep its semaphore or latch alive: "
              + syncIdleExpiry);
    }
    // a retry of a call whose reply was lost runs up to two command timeouts after the call's
    // first run, and a replay answers as that run did: the object must still be there
    if (syncIdleExpiry != null && syncIdleExpiry.compareTo(commandTimeout.multipliedBy(2)) < 0) {
      throw new IllegalArgumentException(
          "idleExpiry must be at least twice the command timeout ("
              + commandTimeout.multipliedBy(2)
              + "), so that a call retried after a lost reply finds what it changed still there: "
              + syncIdleExpiry);
    }
    return new Settings(
        watchdogTimeout, commandTimeout, recheckInterval, replication, maxHoldTime, syncIdleExpiry);
  }
}
