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
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for Redis replies on a caller thread: once, or retried after transient failures for up to
 * the command timeout; the same retries without blocking ({@link #retrying}, the pauses on the
 * timer); and pausing one of Warden's own threads on the timer ({@link #pause}). The only place
 * where Warden blocks a thread to let time pass.
 */
public final class Calls {
  private final Settings settings;
  private final Clock clock;
  private final Timer timer;
  private final BooleanSupplier closed;

  /**
   * @param timer where the non-blocking retries wait ({@link #retrying})
   * @param closed whether the client was closed: retries stop then
   */
  public Calls(Settings settings, Clock clock, Timer timer, BooleanSupplier closed) {
    this.settings = settings;
    this.clock = clock;
    this.timer = timer;
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
   * Waits for the future for {@code nanos} at most, without giving up when interrupted (the flag is
   * restored on return), and never throws: returns null when it completed normally, else its
   * failure, or a {@link TimeoutException} when it did not complete in time.
   */
  public Throwable awaitAtMost(CompletableFuture<?> future, long nanos) {
    boolean interrupted = false;
    long end = clock.nanoTime() + Math.max(0, nanos);
    try {
      while (true) {
        try {
          if (nanos == Long.MAX_VALUE) {
            future.get();
          } else {
            future.get(Math.max(0, end - clock.nanoTime()), TimeUnit.NANOSECONDS);
          }
          return null;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          return e.getCause();
        } catch (CancellationException | TimeoutException e) {
          return e;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
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
   * Runs a script call that is safe to run twice, as {@link #awaitRetrying} does, without blocking
   * any thread: the first call is sent on the calling thread, each retry from the timer after its
   * back-off. The returned future completes on the thread that delivers the last reply (a Redis I/O
   * thread) or on the timer, never on the caller's after this returns: dependent stages must not
   * block or run user code. It fails with what {@link Failures#forCaller} says.
   */
  public <T> CompletableFuture<T> retrying(
      String object, String operation, Supplier<CompletableFuture<T>> call, Runnable inDoubt) {
    CompletableFuture<T> result = new CompletableFuture<>();
    new Retry<>(object, operation, call, inDoubt, result).send();
    return result;
  }

  /** One {@link #retrying} call: its attempts, back-off and outcome. */
  private final class Retry<T> {
    private final String object;
    private final String operation;
    private final Supplier<CompletableFuture<T>> call;
    private final Runnable inDoubt;
    private final CompletableFuture<T> result;
    private final long start = clock.nanoTime();
    private long backoffNanos = TimeUnit.MILLISECONDS.toNanos(Settings.CALL_RETRY_FIRST_MILLIS);

    Retry(
        String object,
        String operation,
        Supplier<CompletableFuture<T>> call,
        Runnable inDoubt,
        CompletableFuture<T> result) {
      this.object = object;
      this.operation = operation;
      this.call = call;
      this.inDoubt = inDoubt;
      this.result = result;
    }

    // FutureReturnValueIgnored: the callback completes the result; the copy it returns is unused
    @SuppressWarnings("FutureReturnValueIgnored")
    void send() {
      CompletableFuture<T> reply;
      try {
        reply = call.get();
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      reply.whenComplete(this::replied);
    }

    private void replied(T value, Throwable failure) {
      if (failure == null) {
        result.complete(value);
        return;
      }
      if (!Failures.isTransient(failure)) {
        result.completeExceptionally(Failures.forCaller(object, operation, failure));
        return;
      }
      inDoubt.run();
      long left = settings.commandTimeoutNanos() - (clock.nanoTime() - start);
      if (closed.getAsBoolean() || left <= 0) {
        result.completeExceptionally(Failures.forCaller(object, operation, failure));
        return;
      }
      long pause = Math.min(backoffNanos, left);
      backoffNanos =
          Math.min(backoffNanos * 2, TimeUnit.MILLISECONDS.toNanos(Settings.CALL_RETRY_MAX_MILLIS));
      try {
        timer.schedule(this::send, pause);
      } catch (RejectedExecutionException closing) {
        result.completeExceptionally(Failures.forCaller(object, operation, failure));
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
