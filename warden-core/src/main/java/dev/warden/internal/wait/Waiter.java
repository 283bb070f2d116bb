package dev.warden.internal.wait;

/** Something parked on a topic until a wake-up or a timer. */
public interface Waiter {
  /**
   * Called once the waiter was taken off its topic by a wake-up (a release, a message naming it):
   * it asks Redis again. Must not block.
   */
  void wake();

  /**
   * Called once the waiter was taken off its topic by a timer (its line's, or its own) with no
   * wake-up since it parked: it checks again, which it may do without asking Redis when nothing can
   * have changed there (the object is held by another owner of this client). Must not block.
   */
  default void recheck() {
    wake();
  }

  /**
   * Whether a re-check now would only park it again without asking Redis: another owner of this
   * client holds the object, and its release hands over or wakes. Must not block: asked under its
   * topic's monitor.
   */
  default boolean waitsForLocalHolder() {
    return false;
  }

  /** The id under which a release may wake this waiter alone; null for wake-one order. */
  default String waiterId() {
    return null;
  }

  /**
   * Where the waiter stands among its topic's parked waiters: lower goes first. The order in which
   * acquisitions first waited, kept across their attempts; waiters of equal order stand in the
   * order they parked.
   */
  default long order() {
    return 0;
  }

  /**
   * This waiter as a release of this client may complete it directly (a lock's hand-off), or null
   * when it takes no hand-off.
   */
  default Successor successor() {
    return null;
  }
}
