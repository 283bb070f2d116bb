package dev.warden;

import java.time.Duration;
import java.util.List;

/**
 * What one {@link Warden} instance holds and waits for now, object by object: for an operator's
 * view (such as an Actuator endpoint) and for leak checks. A snapshot taken without a round trip:
 * it is what this client knows, and Redis stays the authority.
 *
 * @param holds the holds of this instance's owners (threads and handles), oldest first
 * @param waiters the acquisitions in progress, longest waiting first
 * @since 0.2
 */
public record WardenActivity(List<Hold> holds, List<Waiter> waiters) {
  /**
   * Copies the lists.
   *
   * @param holds the holds, oldest first
   * @param waiters the acquisitions in progress, longest waiting first
   */
  public WardenActivity {
    holds = List.copyOf(holds);
    waiters = List.copyOf(waiters);
  }

  /**
   * One owner's hold on one lock.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param owner the owner as Warden names it: this instance's id and a thread or a handle
   * @param fencingToken the hold's fencing token
   * @param holdCount the owner's hold count
   * @param heldFor how long it has been held
   * @param renewed whether the lease keeper renews it (no explicit lease)
   * @param lost whether it is known to be lost, waiting for its owner to be told
   */
  public record Hold(
      ObjectType type,
      String name,
      String owner,
      long fencingToken,
      int holdCount,
      Duration heldFor,
      boolean renewed,
      boolean lost) {}

  /**
   * One acquisition in progress.
   *
   * @param type the object's type
   * @param name the object's name
   * @param waitingFor how long it has been going on
   */
  public record Waiter(ObjectType type, String name, Duration waitingFor) {}
}
