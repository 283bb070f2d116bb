package dev.warden.internal.wait;

/**
 * The reply of one attempt: the grant, or null and how long the current holder may still hold (ms;
 * 0 or less when unknown), which bounds the wait before the next attempt.
 *
 * @param granted what the attempt got, or null when the object is not free
 * @param retryAfterMillis how long the holder may still hold, when refused
 * @param channel where releases of what refused it are published, when not the claim's own
 */
public record Outcome<T>(T granted, long retryAfterMillis, String channel) {
  /** A successful attempt. */
  public static <T> Outcome<T> granted(T granted) {
    return new Outcome<>(granted, 0, null);
  }

  /** A refused attempt; wait on the claim's channel. */
  public static <T> Outcome<T> busy(long retryAfterMillis) {
    return new Outcome<>(null, retryAfterMillis, null);
  }

  /** Refused by something whose releases are published on {@code channel}: wait on that. */
  public static <T> Outcome<T> busy(long retryAfterMillis, String channel) {
    return new Outcome<>(null, retryAfterMillis, channel);
  }

  /**
   * A holder's remaining lease as a script read it ({@code PTTL}) made a retry-after: {@code PTTL}
   * answers 0 for a lease that ends within the millisecond, which here would mean "unknown" and let
   * the wait fall back to the (backed-off) recheck interval, up to a second late. A re-check timed
   * at the holder's remaining lease lands on that edge often, since {@code PTTL} rounds down. So 0
   * becomes 1 ms; -1 (a hold with no lease) stays unknown.
   */
  public static long untilExpiry(long pttl) {
    return pttl == 0 ? 1 : pttl;
  }
}
