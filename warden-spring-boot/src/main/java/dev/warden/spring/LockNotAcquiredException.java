package dev.warden.spring;

/**
 * Thrown by a {@link WardenLocked} method whose lock was not acquired in time (or whose caller was
 * interrupted while waiting); the method did not run.
 *
 * @since 0.2
 */
public class LockNotAcquiredException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The lock's name. */
  private final String lockName;

  /**
   * Creates the exception.
   *
   * @param lockName the lock's name
   * @param message the message, naming the lock
   * @param cause the cause, or null
   */
  public LockNotAcquiredException(String lockName, String message, Throwable cause) {
    super(message, cause);
    this.lockName = lockName;
  }

  /**
   * Returns the name of the lock that was not acquired.
   *
   * @return the lock's name
   */
  public String getLockName() {
    return lockName;
  }
}
