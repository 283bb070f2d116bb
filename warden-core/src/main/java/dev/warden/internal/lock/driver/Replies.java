package dev.warden.internal.lock.driver;

import dev.warden.internal.base.Settings;
import dev.warden.internal.lock.driver.LockDriver.Attempt;
import dev.warden.internal.lock.driver.LockDriver.Release;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Outcome;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;

/** The reply shapes the lock scripts share, parsed once. */
final class Replies {
  private Replies() {}

  /** Parses an acquisition's {1, token, holdCount} or {0, retryAfterMillis}. */
  static Attempt attempt(List<Object> reply) {
    return Scripts.succeeded(reply)
        ? Attempt.acquired(Scripts.number(reply, 1), (int) Scripts.number(reply, 2))
        : Attempt.busy(Outcome.untilExpiry(Scripts.number(reply, 1)));
  }

  /**
   * Parses an acquisition of a lock whose waiters are queued with a heartbeat: a refused waiter
   * asks again at least every {@link Settings#HEARTBEAT_MILLIS}, which renews its heartbeat.
   */
  static Attempt queuedAttempt(List<Object> reply) {
    Attempt attempt = attempt(reply);
    return attempt.acquired() ? attempt : Attempt.busy(heartbeat(attempt.retryAfterMillis()));
  }

  /** How long a queued waiter waits before asking again: its heartbeat, or less. */
  static long heartbeat(long retryAfterMillis) {
    return retryAfterMillis > 0
        ? Math.min(retryAfterMillis, Settings.HEARTBEAT_MILLIS)
        : Settings.HEARTBEAT_MILLIS;
  }

  /** Parses a release's {1, remaining} or {0}; the release wakes as {@code wake} says. */
  static Release release(List<Object> reply, WakeMessage wake) {
    return Scripts.succeeded(reply)
        ? new Release(true, (int) Scripts.number(reply, 1), wake)
        : new Release(false, 0, wake);
  }
}
