package dev.warden.bench;

/**
 * The measured window of one trial, as the workers see it: opened once, closed once. An event
 * counts when it happens while the window is open; a latency counts when its interval overlaps the
 * window, so that a wait still going on when the window closes (a starved writer, say) is recorded
 * when it ends instead of vanishing.
 *
 * <p>Thread-safe: the runner opens and closes it, workers read it.
 */
final class Window {
  private static final long NEVER = Long.MAX_VALUE;

  private volatile long openedAt = NEVER;
  private volatile long closedAt = NEVER;

  /**
   * Returns a window that was open from {@code openedAt} to {@code closedAt}, two nanoTime values:
   * one that another process measured, say.
   */
  static Window between(long openedAt, long closedAt) {
    if (closedAt < openedAt) {
      throw new IllegalArgumentException(
          "closedAt must not be before openedAt: " + closedAt + " < " + openedAt);
    }
    Window window = new Window();
    window.openedAt = openedAt;
    window.closedAt = closedAt;
    return window;
  }

  /** Opens the window now. */
  void open() {
    openedAt = System.nanoTime();
  }

  /** Closes the window now; does nothing if it was never opened or is closed already. */
  void close() {
    if (openedAt != NEVER && closedAt == NEVER) {
      closedAt = System.nanoTime();
    }
  }

  /** Returns whether the window is open now. */
  boolean isOpen() {
    return openedAt != NEVER && closedAt == NEVER;
  }

  /** Returns whether the instant {@code nanos} lies in the window (its edges included). */
  boolean contains(long nanos) {
    return overlaps(nanos, nanos);
  }

  /**
   * Returns whether the interval from {@code startNanos} to {@code endNanos} overlaps the window.
   */
  boolean overlaps(long startNanos, long endNanos) {
    long opened = openedAt;
    return opened != NEVER && endNanos >= opened && startNanos <= closedAt;
  }
}
