package dev.warden.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs contenders on many threads, released together by a start gate so that they really contend,
 * and waits for all of them; the first failure fails the test.
 */
final class StartGate {
  private StartGate() {}

  /** One round of one contender; {@code thread} numbers the contender from 0. */
  interface Round {
    void run(int thread) throws Exception;
  }

  static void run(int threads, int rounds, Round round) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch gate = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  gate.await();
                  for (int i = 0; i < rounds; i++) {
                    round.run(thread);
                  }
                  return null;
                }));
      }
      gate.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
