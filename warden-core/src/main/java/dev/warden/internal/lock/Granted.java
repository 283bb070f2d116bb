package dev.warden.internal.lock;

import dev.warden.internal.base.Settings;
import java.util.concurrent.TimeUnit;

/**
 * A successful attempt: the hold's token, the owner's hold count as this client counts it (which
 * Redis now counts too), the acquisition that took it (which a give-back names), and when the
 * attempt was sent; {@code unconfirmed}: a direct grant (lock-release.lua), whose lease in Redis is
 * the short grant lease until its first renewal confirms it, and whose time is when its message
 * arrived.
 */
record Granted(
    long token, int holdCount, String acquisitionId, long sentAtNanos, boolean unconfirmed) {
  Granted(long token, int holdCount, String acquisitionId, long sentAtNanos) {
    this(token, holdCount, acquisitionId, sentAtNanos, false);
  }

  /**
   * Until when the hold is surely held, for a lease of {@code leaseMillis}: the lease from when the
   * attempt was sent. A direct grant: Redis keeps it for the grant lease from when the release ran,
   * before its message arrived ({@code sentAtNanos}), until its first renewal confirms it; counted
   * as half the grant lease from the arrival, so a message up to that late cannot leave the client
   * believing in a hold Redis has ended (CONCURRENCY.md, 'Direct grants').
   */
  long leaseDeadline(long leaseMillis) {
    long millis =
        unconfirmed ? Math.min(leaseMillis, Settings.GRANT_LEASE_MILLIS / 2) : leaseMillis;
    return sentAtNanos + TimeUnit.MILLISECONDS.toNanos(millis);
  }
}
