package dev.warden.internal.wait;

/** Something parked on a topic until a wake-up or its own timer. */
public interface Waiter {
  /** Called once the waiter was taken off its topic by a wake-up; must not block. */
  void wake();

  /** The id under which a release may wake this waiter alone; null for wake-one order. */
  default String waiterId() {
    return null;
  }

  /**
   * This waiter as a release of this client may complete it directly (a lock's hand-off), or null
   * when it takes no hand-off.
   */
  default Successor successor() {
    return null;
  }
}
