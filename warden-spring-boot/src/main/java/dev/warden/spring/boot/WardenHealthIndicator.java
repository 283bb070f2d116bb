package dev.warden.spring.boot;

import dev.warden.Warden;
import dev.warden.WardenActivity;
import dev.warden.WardenException;
import dev.warden.WardenStats;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Reports the Warden's health as {@code warden}: UP with what this instance holds and waits for,
 * DOWN only when Redis does not answer.
 *
 * <p>The probe is one read of the lock {@value #PROBE_LOCK} ({@code isLocked()}, one round trip),
 * which fails with a {@link WardenException} within the command timeout when Redis is unreachable.
 * On a Redis Cluster it reaches the master of that lock's slot only. The details ({@code mode},
 * {@code target} with passwords masked, {@code holds}, {@code renewedHolds}, {@code waiters},
 * {@code subscriptions}, {@code leaseKeeperRunning}) come from {@link Warden#stats()} and {@link
 * Warden#activity()}, without further round trips.
 *
 * @since 0.2
 */
public final class WardenHealthIndicator implements HealthIndicator {
  /** The lock whose state the probe reads. */
  public static final String PROBE_LOCK = "warden-health-probe";

  private final Warden warden;
  private final WardenConnection connection;

  /**
   * Creates the indicator.
   *
   * @param warden the Warden to report on
   * @param connection where it connects, for the details; may be null
   */
  public WardenHealthIndicator(Warden warden, WardenConnection connection) {
    this.warden = warden;
    this.connection = connection;
  }

  /** Probes Redis and returns UP with details, or DOWN with the failure. */
  @Override
  public Health health() {
    Health.Builder health = new Health.Builder();
    if (connection != null) {
      health.withDetail("mode", connection.mode().name().toLowerCase(java.util.Locale.ROOT));
      health.withDetail("target", connection.maskedUris());
    }
    try {
      warden.lock(PROBE_LOCK).isLocked();
    } catch (WardenException e) {
      return health.down(e).build();
    }
    WardenStats stats = warden.stats();
    WardenActivity activity = warden.activity();
    return health
        .up()
        .withDetail("holds", stats.holds())
        .withDetail("renewedHolds", stats.renewedHolds())
        .withDetail("waiters", activity.waiters().size())
        .withDetail("subscriptions", stats.subscriptions())
        .withDetail("leaseKeeperRunning", stats.leaseKeeperRunning())
        .build();
  }
}
