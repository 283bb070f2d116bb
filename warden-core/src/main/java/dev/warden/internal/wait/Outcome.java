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
}
