package dev.warden;

/**
 * Thrown when Redis is unreachable, too slow, or fails a command that Warden sent on behalf of a
 * named object. The message names the object (for example {@code lock 'orders'}) and the cause is
 * the underlying client or server error.
 *
 * <p>After a {@code WardenException} from an acquisition the caller does not hold the lock; after
 * one from a release the hold is left as it was, and calling the release again is safe (a retried
 * release never counts twice).
 *
 * @since 0.2
 */
public class WardenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the exception.
   *
   * @param message names the object and what failed
   */
  public WardenException(String message) {
    super(message);
  }

  /**
   * Makes the exception with its cause.
   *
   * @param message names the object and what failed
   * @param cause the client or server error
   */
  public WardenException(String message, Throwable cause) {
    super(message, cause);
  }
}
