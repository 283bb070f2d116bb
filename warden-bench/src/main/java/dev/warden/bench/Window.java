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

  /**
   * Returns whether the interval from {@code startNanos} to {@code endNanos} overlaps the window.
   */
  boolean overlaps(long startNanos, long endNanos) {
    long opened = openedAt;
    return opened != NEVER && endNanos >= opened && startNanos <= closedAt;
  }
}
