package dev.warden.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waiting for internal futures from caller threads. */
final class Futures {
  private Futures() {}

  /**
   * Waits for the future without giving up when interrupted; the interrupt flag is restored on
   * return. Failures are thrown as {@link Failures#forCaller} says.
   */
  static <T> T awaitUninterruptibly(CompletableFuture<T> future, String object, String operation) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException | CancellationException e) {
          throw Failures.forCaller(object, operation, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
