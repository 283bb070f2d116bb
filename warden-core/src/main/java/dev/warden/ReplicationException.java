package dev.warden;

/**
 * Thrown when an acquisition under {@link Replication#requireReplicas} was not acknowledged by the
 * required replicas within the caller's wait; the hold was given back.
 *
 * @since 0.2
 */
public class ReplicationException extends WardenException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message names the object and says how many replicas acknowledged
   */
  public ReplicationException(String message) {
    super(message);
  }
}
