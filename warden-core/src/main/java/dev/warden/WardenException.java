package dev.warden;

/**
 * Thrown when Redis is unreachable, too slow, or fails a command that Warden sent on behalf of a
 * named object. The message names the object (for example {@code lock 'orders'}) and the cause is
 * the underlying client or server error.
 *
 * <p>After a {@code WardenException} from an acquisition the caller does not hold the lock; after
 * one from a release the hold is left as it was, and calling the release again is safe (a retried
 * release never counts twice).
 */
public class WardenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WardenException(String message) {
    super(message);
  }

  public WardenException(String message, Throwable cause) {
    super(message, cause);
  }
}
