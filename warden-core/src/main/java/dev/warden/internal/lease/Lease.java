package dev.warden.internal.lease;

/**
 * The lease a hold is taken with: its length, and whether the lease keeper renews it (no explicit
 * lease was given) or it simply runs out (an explicit lease).
 *
 * @param millis the lease's length in ms
 * @param renewed whether the lease keeper renews it until release
 */
public record Lease(long millis, boolean renewed) {
  /** A lease the lease keeper renews every third of {@code millis}. */
  public static Lease renewed(long millis) {
    return new Lease(millis, true);
  }

  /** An explicit lease: it ends after {@code millis} unless released before. */
  public static Lease fixed(long millis) {
    return new Lease(millis, false);
  }
}
