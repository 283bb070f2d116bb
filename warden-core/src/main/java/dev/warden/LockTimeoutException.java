package dev.warden;

/**
 * Thrown by {@link DistributedLock#acquire(java.time.Duration)}, and used to complete the future
 * of {@link DistributedLock#acquireAsync(java.time.Duration)}, when the lock could not be taken
 * within the requested wait because another owner kept holding it.
 */
public class LockTimeoutException extends WardenException {
  private static final long serialVersionUID = 1L;

  public LockTimeoutException(String message) {
    super(message);
  }
}
