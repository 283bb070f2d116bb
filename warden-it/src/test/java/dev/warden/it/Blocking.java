package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * Starts blocking calls (acquire, await, ...) on test threads, as futures: a checked exception the
 * call throws completes the future exceptionally.
 */
final class Blocking {
  private Blocking() {}

  /** A blocking call with a result. */
  interface Call<T> {
    T call() throws Exception;
  }

  /** A blocking call without a result. */
  interface Action {
    void run() throws Exception;
  }

  /** Runs the call on a thread of its own (the common pool may have a single thread). */
  static <T> CompletableFuture<T> inThread(Call<T> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            });
    thread.setDaemon(true);
    thread.start();
    return result;
  }

  /** Takes the lock (waiting as long as it takes) and returns the fencing token it got. */
  static long tokenAfterWaiting(DistributedLock lock) {
    lock.lock();
    try {
      return lock.fencingToken();
    } finally {
      lock.unlock();
    }
  }

  /**
   * On a thread of its own, takes and releases the lock turn after turn; {@code inside} runs while
   * the lock is held, gets the turn's number (from 1) and says whether to take another. Completes
   * with the number of turns taken.
   */
  static CompletableFuture<Long> takingTurns(DistributedLock lock, LongPredicate inside) {
    return inThread(
        () -> {
          long turns = 0;
          boolean more = true;
          while (more) {
            lock.lock();
            try {
              more = inside.test(++turns);
            } finally {
              lock.unlock();
            }
          }
          return turns;
        });
  }

  static <T> CompletableFuture<T> supply(Call<T> call, Executor threads) {
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

  static CompletableFuture<Void> run(Action action, Executor threads) {
    return supply(
        () -> {
          action.run();
          return null;
        },
        threads);
  }

  /**
   * Runs the action on a thread of its own, interrupts that thread once {@code waiting} holds, and
   * returns once the action has thrown {@link InterruptedException}; fails if it ends otherwise.
   */
  static void interruptOnceWaiting(Action action, Callable<Boolean> waiting) throws Exception {
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                action.run();
                ended.complete(null);
              } catch (Throwable t) {
                ended.complete(t);
              }
            });
    thread.start();
    await().atMost(Duration.ofSeconds(10)).until(waiting);
    thread.interrupt();
    assertThat(ended.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }
}
