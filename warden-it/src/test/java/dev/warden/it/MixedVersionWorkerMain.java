package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A separate JVM, run on this version's class path or an earlier release's, whose threads take one
 * lock in turns and, while holding it, add one to a counter by a read and a write (so that two
 * holders at once lose an addition) and append their fencing token to a list. It uses only API that
 * every release has. Arguments: redis URI, lock type ({@code lock} or {@code fair}), lock name,
 * threads, rounds per thread, this worker's name. Prints {@code STARTED}, begins when the list
 * {@code <lock name>:go} gives it an element, and prints {@code DONE <rounds>} and exits 0, or
 * prints {@code FAILED <exception>} and exits 1.
 */
public final class MixedVersionWorkerMain {
  private MixedVersionWorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    String uri = args[0];
    boolean fair = args[1].equals("fair");
    String name = args[2];
    int threads = Integer.parseInt(args[3]);
    int rounds = Integer.parseInt(args[4]);
    String worker = args[5];
    RedisClient client = RedisClient.create(uri);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (Warden warden = Warden.connect(uri);
        StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      DistributedLock lock = fair ? warden.fairLock(name) : warden.lock(name);
      System.out.println("STARTED");
      System.out.flush();
      // both workers start their rounds together: one that started seconds earlier on a loaded
      // machine could otherwise finish before the other asks at all
      redis.blpop(0, name + ":go");
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String who = worker + "-" + t;
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < rounds; i++) {
                      lock.lock();
                      try {
                        long token = lock.fencingToken();
                        String seen = redis.get(name + ":counter");
                        long next = seen == null ? 1 : Long.parseLong(seen) + 1;
                        redis.set(name + ":counter", Long.toString(next));
                        redis.rpush(name + ":tokens", token + " " + who);
                      } finally {
                        lock.unlock();
                      }
                    }
                  } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                  }
                },
                who);
        running.add(thread);
        thread.start();
      }
      for (Thread thread : running) {
        thread.join();
      }
    } finally {
      client.shutdown();
    }
    if (failure.get() != null) {
      System.out.println("FAILED " + failure.get());
      System.out.flush();
      System.exit(1);
    }
    System.out.println("DONE " + threads * rounds);
    System.out.flush();
  }
}
