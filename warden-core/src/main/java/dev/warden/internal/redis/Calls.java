package dev.warden.internal.redis;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for Redis replies on a caller thread: once, or retried after transient failures for up to
 * the command timeout; and pausing one of Warden's own threads on the timer ({@link #pause}). The
 * only place where Warden blocks a thread to let time pass.
 */
public final class Calls {
  private final Settings settings;
  private final Clock clock;
  private final BooleanSupplier closed;

  /**
   * @param closed whether the client was closed: retries stop then
   */
  public Calls(Settings settings, Clock clock, BooleanSupplier closed) {
    this.settings = settings;
    this.clock = clock;
    this.closed = closed;
  }

  /**
   * Waits for the future without giving up when interrupted; the interrupt flag is restored on
   * return. Failures are thrown as {@link Failures#forCaller} says.
   */
  public static <T> T awaitUninterruptibly(
      CompletableFuture<T> future, String object, String operation) {
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

  /**
   * Waits for the future; when interrupted, runs {@code abandon} (which must leave nothing held)
   * and throws. Failures are thrown as {@link Failures#forCaller} says.
   */
  public static <T> T await(
      CompletableFuture<T> future, String object, String operation, Runnable abandon)
      throws InterruptedException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      abandon.run();
      throw e;
    } catch (ExecutionException | CancellationException e) {
      throw Failures.forCaller(object, operation, e);
    }
  }

  /**
   * Runs a script call that is safe to run twice (it carries what makes a replay change nothing)
   * and waits for its reply, sending it again after transient failures until they have lasted the
   * command timeout. {@code inDoubt} runs after each transient failure: the call may have run. The
   * interrupt flag is kept but does not cut the retries short.
   */
  public <T> T awaitRetrying(
      String object, String operation, Supplier<CompletableFuture<T>> call, Runnable inDoubt) {
    boolean interrupted = Thread.interrupted();
    try {
      long start = clock.nanoTime();
      long backoffNanos = TimeUnit.MILLISECONDS.toNanos(Settings.CALL_RETRY_FIRST_MILLIS);
      while (true) {
        try {
          return call.get().join();
        } catch (CompletionException | CancellationException e) {
          if (!Failures.isTransient(e)) {
            throw Failures.forCaller(object, operation, e);
          }
          inDoubt.run();
          long left = settings.commandTimeoutNanos() - (clock.nanoTime() - start);
          if (closed.getAsBoolean() || left <= 0) {
            throw Failures.forCaller(object, operation, e);
          }
          // Back off while the connection is down (scripts then fail at once), then try again.
          LockSupport.parkNanos(Math.min(backoffNanos, left));
          interrupted |= Thread.interrupted();
          backoffNanos =
              Math.min(
                  backoffNanos * 2, TimeUnit.MILLISECONDS.toNanos(Settings.CALL_RETRY_MAX_MILLIS));
        }
      }
    } finally {
      if (interrupted || Thread.interrupted()) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Blocks the calling thread (one of Warden's own, never a caller's or an event loop's) for {@code
   * delayNanos} on the timer, so that the pause follows the {@link Timer}'s time (virtual in
   * tests). Returns false, with the interrupt flag set, if the thread was interrupted or the timer
   * was shut down meanwhile: Warden is closing.
   */
  public static boolean pause(Timer timer, long delayNanos) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Timer.Scheduled wakeUp;
    try {
      wakeUp = timer.schedule(() -> done.complete(null), delayNanos);
    } catch (RejectedExecutionException closing) {
      Thread.currentThread().interrupt();
      return false;
    }
    try {
      done.get();
      return true;
    } catch (InterruptedException e) {
      wakeUp.cancel();
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never: nothing completes it exceptionally
    }
  }
}
