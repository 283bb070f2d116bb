package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.locks.Condition;

/**
 * A producer process of the bounded buffer: puts items {@code <prefix>-0 .. <prefix>-(n-1)} into a
 * Redis list of at most {@code capacity} items, guarded by one lock and its conditions {@code
 * notFull} and {@code notEmpty}. Arguments: redis URI, prefix, n, capacity. Prints {@code PRODUCED
 * <n>} when done.
 */
public final class BufferProducerMain {
  private BufferProducerMain() {}

  public static void main(String[] args) throws InterruptedException {
    String uri = args[0];
    String prefix = args[1];
    int items = Integer.parseInt(args[2]);
    int capacity = Integer.parseInt(args[3]);
    RedisClient client = RedisClient.create(uri);
    try (Warden warden = Warden.connect(uri);
        StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      DistributedLock lock = warden.lock("buffer");
      Condition notFull = lock.newCondition("notFull");
      Condition notEmpty = lock.newCondition("notEmpty");
      for (int i = 0; i < items; i++) {
        lock.lock();
        try {
          while (redis.llen(BoundedBufferIT.ITEMS) >= capacity) {
            notFull.await();
          }
          redis.rpush(BoundedBufferIT.ITEMS, prefix + "-" + i);
          notEmpty.signal();
        } finally {
          lock.unlock();
        }
      }
      System.out.println("PRODUCED " + items);
    } finally {
      client.shutdown();
    }
  }
}
