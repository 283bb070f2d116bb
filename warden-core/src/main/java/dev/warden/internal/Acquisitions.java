package dev.warden.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/** Waiting for an {@link Acquisition} from a caller thread. */
final class Acquisitions {
  private Acquisitions() {}

  /**
   * Waits for the acquisition's grant; null when its wait ran out. When interrupted (and
   * interruptible), abandons it, gives back a grant that arrived meanwhile, and throws.
   */
  static <T> T await(Acquisition<T> acquisition, String object, boolean interruptible)
      throws InterruptedException {
    if (!interruptible) {
      return Futures.awaitUninterruptibly(acquisition.result, object, acquisition.verb());
    }
    try {
      return acquisition.result.get();
    } catch (InterruptedException e) {
      acquisition.abandonAndGiveBack();
      throw e;
    } catch (ExecutionException | CancellationException e) {
      throw Failures.forCaller(object, acquisition.verb(), e);
    }
  }
}
