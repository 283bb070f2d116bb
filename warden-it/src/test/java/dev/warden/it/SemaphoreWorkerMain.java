package dev.warden.it;

import dev.warden.DistributedSemaphore;
import dev.warden.Warden;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.CountDownLatch;

/**
 * A separate JVM that uses a semaphore. Arguments: redis URI, semaphore name, and either a number
 * of rounds or {@code wait:<permits>}.
 *
 * <p>With rounds it prints {@code READY}, waits for a token on the list {@code gate:<name>}, then
 * counts once per round with {@link #countOnce} and prints {@code DONE overlaps=<n>}. With {@code
 * wait:<n>} it waits for n permits, and then until it is killed.
 */
public final class SemaphoreWorkerMain {
  private SemaphoreWorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    String name = args[1];
    try (Warden warden = Warden.connect(args[0])) {
      DistributedSemaphore semaphore = warden.semaphore(name);
      if (args[2].startsWith("wait:")) {
        semaphore.acquire(Integer.parseInt(args[2].substring("wait:".length())));
        System.out.println("ACQUIRED");
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
        return;
      }
      RedisClient client = RedisClient.create(args[0]);
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        count(semaphore, connection.sync(), name, Integer.parseInt(args[2]));
      } finally {
        client.shutdown();
      }
    }
  }

  private static void count(
      DistributedSemaphore semaphore, RedisCommands<String, String> redis, String name, int rounds)
      throws InterruptedException {
    System.out.println("READY");
    System.out.flush();
    redis.blpop(60, "gate:" + name);
    int overlaps = 0;
    for (int i = 0; i < rounds; i++) {
      overlaps += countOnce(semaphore, redis, name);
    }
    System.out.println("DONE overlaps=" + overlaps);
    System.out.flush();
  }

  /**
   * Takes one permit and, while holding it, increments {@code counter:<name>} with a separate read
   * and write; returns 1 if another holder was inside at the same time (seen through {@code
   * inside:<name>}), else 0.
   */
  static int countOnce(
      DistributedSemaphore semaphore, RedisCommands<String, String> redis, String name)
      throws InterruptedException {
    semaphore.acquire();
    try {
      int overlap = redis.incr("inside:" + name) > 1 ? 1 : 0;
      String value = redis.get("counter:" + name);
      int read = value == null ? 0 : Integer.parseInt(value);
      redis.set("counter:" + name, Integer.toString(read + 1));
      redis.decr("inside:" + name);
      return overlap;
    } finally {
      semaphore.release();
    }
  }
}
