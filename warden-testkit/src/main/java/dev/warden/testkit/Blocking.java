package dev.warden.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Starts blocking calls (acquire, await, lock...) off the test's thread, as futures, so that a test
 * can start a waiter, check that it waits, release what it waits for, and then wait for its outcome
 * with a bound: {@code future.get(10, SECONDS)}.
 *
 * <pre>{@code
 * lock.lock();
 * CompletableFuture<Boolean> waiter = Blocking.inThread(() -> other.tryLock(20, SECONDS));
 * assertThat(waiter).isNotDone();
 * lock.unlock();
 * assertThat(waiter.get(10, SECONDS)).isTrue();
 * }</pre>
 *
 * <p>Whatever the call throws, a checked exception included, completes the future exceptionally:
 * {@code get} throws an {@link java.util.concurrent.ExecutionException} whose cause is what the
 * call threw.
 *
 * <p><b>Thread-safety.</b> The methods may be called from any thread. {@link #inThread} starts a
 * daemon thread per call (the common pool may have a single thread, and a blocked call must not
 * keep the JVM alive); {@link #supply} and {@link #run} use the executor given.
 *
 * @since 0.2
 */
public final class Blocking {
  private Blocking() {}

  /** A blocking call with a result. */
  @FunctionalInterface
  public interface Call<T> {
    /** Makes the call. */
    T call() throws Exception;
  }

  /** A blocking call without a result. */
  @FunctionalInterface
  public interface Action {
    /** Makes the call. */
    void run() throws Exception;
  }

  /** Makes the call on a new daemon thread of its own, and returns its outcome as a future. */
  public static <T> CompletableFuture<T> inThread(Call<T> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            },
            "blocking-call");
    thread.setDaemon(true);
    thread.start();
    return result;
  }

  /** Makes the call on one of {@code threads}, and returns its outcome as a future. */
  public static <T> CompletableFuture<T> supply(Call<T> call, Executor threads) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return call.call();
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new CompletionException(e);
          }
        },
        threads);
  }

  /** Makes the call on one of {@code threads}, and returns a future of its completion. */
  public static CompletableFuture<Void> run(Action action, Executor threads) {
    return supply(
        () -> {
          action.run();
          return null;
        },
        threads);
  }
}
