package dev.warden;

/**
 * Thrown when a hold is released (or used) after its lease ran out: the lock expired in Redis, was
 * force-unlocked, or was lost with a Redis restart, so the caller's critical section may not have
 * been exclusive. It is an {@link IllegalMonitorStateException} because the caller no longer owns
 * the lock; it has its own type because the remedy differs (check the work done under the lock,
 * usually with the fencing token).
 *
 * @since 0.2
 */
public class LeaseExpiredException extends IllegalMonitorStateException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the exception.
   *
   * @param message the detail message, naming the lock
   */
  public LeaseExpiredException(String message) {
    super(message);
  }

  /**
   * Makes the exception with its cause: what made the hold end, when it was a failure (for example
   * a condition's {@code await} that could not take the lock back).
   *
   * @param message the detail message, naming the lock
   * @param cause the failure that ended the hold, or null if none is known
   * @since 0.2
   */
  public LeaseExpiredException(String message, Throwable cause) {
    super(message);
    if (cause != null) {
      initCause(cause);
    }
  }
}
