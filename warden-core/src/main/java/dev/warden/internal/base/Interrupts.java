package dev.warden.internal.base;

/** The two ways Warden's blocking calls deal with interrupts, written once. */
public final class Interrupts {
  private Interrupts() {}

  /** A blocking step that may throw {@link InterruptedException}. */
  @FunctionalInterface
  public interface Blocking<T> {
    T run() throws InterruptedException;
  }

  /**
   * Throws if the calling thread was interrupted (clearing the flag, as a blocking call does).
   *
   * @param object names the object, for the message
   * @param action what the call was about to do, e.g. {@code acquiring}
   */
  public static void checkBefore(String object, String action) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(object + ": interrupted before " + action);
    }
  }

  /**
   * Runs a step that was told not to give up when interrupted: it cannot throw {@link
   * InterruptedException}, and an {@link AssertionError} says so if it does.
   */
  public static <T> T uninterruptibly(Blocking<T> step) {
    try {
      return step.run();
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible call was interrupted", e);
    }
  }
}
