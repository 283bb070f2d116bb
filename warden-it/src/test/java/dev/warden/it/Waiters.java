package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.testkit.Blocking;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * The waiting threads of the integration tests, beside the testkit's generic {@link Blocking}: a
 * lock's waiter that reports its fencing token, a worker taking turns on a lock, and a waiter
 * interrupted once it waits.
 */
final class Waiters {
  private Waiters() {}

  /**
   * Signals {@code condition} of {@code lock} (taking the lock for each signal) until {@code woken}
   * completes, for up to 10 s: a signal sent before the waiter awaits (it releases the lock to
   * await) would find nobody.
   */
  static void signalUntilWoken(DistributedLock lock, String condition, CompletableFuture<?> woken) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              lock.lock();
              try {
                lock.newCondition(condition).signal();
              } finally {
                lock.unlock();
              }
              return woken.isDone();
            });
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
   * On a thread of its own, takes the lock (waiting as long as it takes), completes {@code held}
   * with its fencing token, and keeps the lock until {@code release} completes (failing after
   * {@code seconds}); then releases it.
   */
  static CompletableFuture<Void> holdingUntil(
      DistributedLock lock,
      CompletableFuture<Long> held,
      CompletableFuture<?> release,
      long seconds) {
    return Blocking.inThread(
        () -> {
          lock.lock();
          try {
            held.complete(lock.fencingToken());
            release.get(seconds, TimeUnit.SECONDS);
          } finally {
            lock.unlock();
          }
          return null;
        });
  }

  /**
   * On a thread of its own, takes the lock (waiting as long as it takes) and releases it; completes
   * with how long that took, in milliseconds.
   */
  static CompletableFuture<Long> millisToLockAndUnlock(DistributedLock lock) {
    return Blocking.inThread(
        () -> {
          long started = System.nanoTime();
          lock.lock();
          lock.unlock();
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        });
  }

  /**
   * On a thread of its own, takes and releases the lock turn after turn; {@code inside} runs while
   * the lock is held, gets the turn's number (from 1) and says whether to take another. Completes
   * with the number of turns taken.
   */
  static CompletableFuture<Long> takingTurns(DistributedLock lock, LongPredicate inside) {
    return Blocking.inThread(
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

  /**
   * Runs the action on a thread of its own, interrupts that thread once {@code waiting} holds, and
   * returns once the action has thrown {@link InterruptedException}; fails if it ends otherwise.
   */
  static void interruptOnceWaiting(Blocking.Action action, Callable<Boolean> waiting)
      throws Exception {
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
