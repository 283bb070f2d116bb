package dev.warden.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Runs contenders on threads of their own, released together once all of them are ready, so that
 * they really contend; returns once every contender has run all its rounds, and fails as soon as
 * one of them fails.
 *
 * <p>Pair it with a {@link CriticalSection} to check a lock as an invariant:
 *
 * <pre>{@code
 * CriticalSection section = new CriticalSection();
 * StartGate.run(8, 100, contender -> {
 *   DistributedLock lock = locks.get(contender % locks.size()); // one per Warden instance
 *   lock.lock();
 *   try {
 *     section.enterWithToken(lock.fencingToken());
 *   } finally {
 *     lock.unlock();
 *   }
 * });
 * section.assertMutualExclusion(8 * 100);
 * }</pre>
 *
 * <p><b>Failures.</b> The first round to throw ends the run: the other contenders are interrupted,
 * and {@code run} throws an {@link AssertionError} naming the contender and the round, with what
 * the round threw as its cause. A run still going after its time limit ends the same way, naming
 * the contenders still at work and their rounds. Only the contender threads are interrupted: a
 * round blocked uninterruptibly (e.g. in {@code Lock.lock()}) keeps its thread, a daemon thread, so
 * it cannot hold up the JVM's exit.
 *
 * <p><b>Thread-safety.</b> Each call to {@code run} has threads of its own, and may be made from
 * any thread. Rounds of different contenders run at the same time, so state they share must be
 * thread-safe or be what the test checks. Everything the rounds did happens-before {@code run}
 * returns: the caller may read their results without further synchronization.
 *
 * @since 0.2
 */
public final class StartGate {
  /** How long {@link #run(int, int, Round)} lets the contenders work. */
  public static final Duration DEFAULT_TIME_LIMIT = Duration.ofMinutes(2);

  private StartGate() {}

  /** One round of one contender. */
  @FunctionalInterface
  public interface Round {
    /**
     * Runs one round; {@code contender} numbers the contender from 0, and the same contender's
     * rounds run one after another on the same thread.
     */
    void run(int contender) throws Exception;
  }

  /**
   * Runs {@code rounds} rounds on each of {@code contenders} threads, released together, within
   * {@link #DEFAULT_TIME_LIMIT}.
   *
   * @throws AssertionError if a round throws, or the contenders are still at work after the limit
   * @throws IllegalArgumentException if {@code contenders} is not positive or {@code rounds} is
   *     negative
   * @throws InterruptedException if the calling thread is interrupted while waiting; the contenders
   *     are interrupted too
   */
  public static void run(int contenders, int rounds, Round round) throws InterruptedException {
    run(contenders, rounds, DEFAULT_TIME_LIMIT, round);
  }

  /**
   * Runs {@code rounds} rounds on each of {@code contenders} threads, released together, within
   * {@code timeLimit} counted from their release.
   *
   * @throws AssertionError if a round throws, or the contenders are still at work after {@code
   *     timeLimit}
   * @throws IllegalArgumentException if {@code contenders} is not positive, {@code rounds} is
   *     negative or {@code timeLimit} is null or not positive
   * @throws InterruptedException if the calling thread is interrupted while waiting; the contenders
   *     are interrupted too
   */
  public static void run(int contenders, int rounds, Duration timeLimit, Round round)
      throws InterruptedException {
    if (contenders <= 0) {
      throw new IllegalArgumentException("contenders must be positive: " + contenders);
    }
    if (rounds < 0) {
      throw new IllegalArgumentException("rounds must not be negative: " + rounds);
    }
    if (timeLimit == null || timeLimit.isNegative() || timeLimit.isZero()) {
      throw new IllegalArgumentException("timeLimit must be positive: " + timeLimit);
    }
    if (round == null) {
      throw new IllegalArgumentException("round must not be null");
    }
    CountDownLatch ready = new CountDownLatch(contenders);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicIntegerArray roundOf = new AtomicIntegerArray(contenders); // the round each one is in
    CompletableFuture<AssertionError> firstFailure = new CompletableFuture<>();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < contenders; c++) {
      int contender = c;
      CompletableFuture<Void> finished = new CompletableFuture<>();
      done.add(finished);
      Thread thread =
          new Thread(
              () -> {
                int current = 0;
                try {
                  ready.countDown();
                  gate.await();
                  for (; current < rounds; current++) {
                    roundOf.set(contender, current);
                    round.run(contender);
                  }
                  roundOf.set(contender, rounds);
                  finished.complete(null);
                } catch (Throwable t) {
                  AssertionError failure =
                      new AssertionError(
                          "contender "
                              + contender
                              + " failed in round "
                              + current
                              + " of "
                              + rounds
                              + ": "
                              + t,
                          t);
                  firstFailure.complete(failure);
                  finished.completeExceptionally(failure);
                }
              },
              "start-gate-" + contender);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
    try {
      ready.await();
      gate.countDown();
      CompletableFuture<Void> all =
          CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0]));
      try {
        CompletableFuture.anyOf(all, firstFailure).get(timeLimit.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError(
            "contenders still at work after " + timeLimit + ": " + atWork(done, roundOf, rounds));
      } catch (ExecutionException e) {
        throw new AssertionError("cannot happen: the futures waited for never fail", e);
      }
      AssertionError failure = firstFailure.getNow(null);
      if (failure != null) {
        throw failure;
      }
    } finally {
      threads.forEach(Thread::interrupt); // those still at work after a failure or timeout
    }
  }

  private static String atWork(
      List<CompletableFuture<Void>> done, AtomicIntegerArray roundOf, int rounds) {
    StringBuilder atWork = new StringBuilder();
    for (int c = 0; c < done.size(); c++) {
      if (!done.get(c).isDone()) {
        atWork.append(atWork.length() == 0 ? "" : ", ");
        atWork.append(c).append(" (round ").append(roundOf.get(c)).append(" of ").append(rounds);
        atWork.append(')');
      }
    }
    return atWork.toString();
  }
}
