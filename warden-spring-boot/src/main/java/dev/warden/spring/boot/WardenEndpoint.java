package dev.warden.spring.boot;

import dev.warden.Warden;
import dev.warden.WardenActivity;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code warden} Actuator endpoint: what this instance of the application holds and waits for
 * ({@link Warden#activity()}), read-only and without a round trip to Redis. {@code
 * /actuator/warden} lists everything, {@code /actuator/warden/{name}} one object's holds and
 * waiters.
 *
 * @since 0.2
 */
@Endpoint(id = "warden")
public class WardenEndpoint {
  private final Warden warden;

  /**
   * Creates the endpoint.
   *
   * @param warden the Warden to report on
   */
  public WardenEndpoint(Warden warden) {
    this.warden = warden;
  }

  /**
   * Lists this instance's holds and waiters.
   *
   * @return the holds, oldest first, and the waiters, longest waiting first
   */
  @ReadOperation
  public Activity activity() {
    return Activity.of(warden.activity(), null);
  }

  /**
   * Lists this instance's holds and waiters of one object.
   *
   * @param name the lock's (or synchronizer's) name
   * @return its holds and waiters
   */
  @ReadOperation
  public Activity activity(@Selector String name) {
    return Activity.of(warden.activity(), name);
  }

  /**
   * The endpoint's answer.
   *
   * @param holds the holds
   * @param waiters the acquisitions in progress
   */
  public record Activity(List<Hold> holds, List<Waiter> waiters) {
    static Activity of(WardenActivity activity, String name) {
      return new Activity(
          activity.holds().stream()
              .filter(hold -> name == null || hold.name().equals(name))
              .map(Hold::of)
              .collect(Collectors.toList()),
          activity.waiters().stream()
              .filter(waiter -> name == null || waiter.name().equals(name))
              .map(Waiter::of)
              .collect(Collectors.toList()));
    }
  }

  /**
   * One hold.
   *
   * @param type the object's type ({@code lock}, {@code fair_lock}, {@code read_lock}, ...)
   * @param name the object's name
   * @param owner the owner as Warden names it
   * @param fencingToken the hold's fencing token
   * @param holdCount the owner's hold count
   * @param heldForMillis how long it has been held, in milliseconds
   * @param renewed whether the watchdog renews it
   * @param lost whether it is known to be lost
   */
  public record Hold(
      String type,
      String name,
      String owner,
      long fencingToken,
      int holdCount,
      long heldForMillis,
      boolean renewed,
      boolean lost) {
    static Hold of(WardenActivity.Hold hold) {
      return new Hold(
          hold.type().tag(),
          hold.name(),
          hold.owner(),
          hold.fencingToken(),
          hold.holdCount(),
          hold.heldFor().toMillis(),
          hold.renewed(),
          hold.lost());
    }
  }

  /**
   * One acquisition in progress.
   *
   * @param type the object's type
   * @param name the object's name
   * @param waitingForMillis how long it has been waiting, in milliseconds
   */
  public record Waiter(String type, String name, long waitingForMillis) {
    static Waiter of(WardenActivity.Waiter waiter) {
      return new Waiter(waiter.type().tag(), waiter.name(), waiter.waitingFor().toMillis());
    }
  }
}
