package dev.warden;

/**
 * Thrown by {@link DistributedLock#acquire(java.time.Duration)}, and used to complete the future of
 * {@link DistributedLock#acquireAsync(java.time.Duration)}, when the lock could not be taken within
 * the requested wait because another owner kept holding it.
 *
 * @since 0.2
 */
public class LockTimeoutException extends WardenException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the exception.
   *
   * @param message the detail message, naming the lock
   */
  public LockTimeoutException(String message) {
    super(message);
  }
}
