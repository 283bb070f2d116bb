package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A bounded buffer across processes, built on one distributed lock and two conditions: producers in
 * two other JVMs, consumers here in two Warden clients. Every item must move exactly once.
 */
@ExtendWith(WardenExtension.class)
class BoundedBufferIT {
  static final String ITEMS = "buffer:items";
  private static final int PER_PRODUCER = 40;
  private static final int CAPACITY = 3;

  @Test
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  void producersAndConsumersInSeveralProcessesMoveEveryItemExactlyOnce(
      RedisServer redis, WardenFactory wardens) throws Exception {
    int total = 2 * PER_PRODUCER;
    ConcurrentLinkedQueue<String> consumed = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Void>> consumers = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      Warden warden = wardens.create();
      consumers.add(
          CompletableFuture.runAsync(() -> consume(warden, redis.redis(), consumed, total)));
    }
    try (JvmProcess a =
            JvmProcess.start(
                BufferProducerMain.class, redis.uri(), "a", "" + PER_PRODUCER, "" + CAPACITY);
        JvmProcess b =
            JvmProcess.start(
                BufferProducerMain.class, redis.uri(), "b", "" + PER_PRODUCER, "" + CAPACITY)) {
      // a consumer that fails leaves the producers waiting on a full buffer: report its failure
      // at once instead of the producers' silence two minutes later
      CompletableFuture<Void> produced =
          Blocking.inThread(
              () -> {
                a.awaitLine("PRODUCED", Duration.ofMinutes(2));
                b.awaitLine("PRODUCED", Duration.ofMinutes(2));
                return null;
              });
      CompletableFuture<Object> consumerFailed = new CompletableFuture<>();
      for (CompletableFuture<Void> consumer : consumers) {
        consumer.whenComplete(
            (ignored, failure) -> {
              if (failure != null) {
                consumerFailed.completeExceptionally(failure);
              }
            });
      }
      CompletableFuture.anyOf(produced, consumerFailed).get(250, TimeUnit.SECONDS);
    }
    for (CompletableFuture<Void> consumer : consumers) {
      consumer.get(120, TimeUnit.SECONDS);
    }
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < PER_PRODUCER; i++) {
      expected.add("a-" + i);
      expected.add("b-" + i);
    }
    assertThat(consumed).hasSize(total).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(redis.redis().llen(ITEMS)).isZero();
  }

  /** Takes items until {@code total} were consumed by all consumers together. */
  private static void consume(
      Warden warden,
      RedisCommands<String, String> redis,
      ConcurrentLinkedQueue<String> consumed,
      int total) {
    DistributedLock lock = warden.lock("buffer");
    Condition notFull = lock.newCondition("notFull");
    Condition notEmpty = lock.newCondition("notEmpty");
    while (true) {
      lock.lock();
      try {
        while (redis.llen(ITEMS) == 0) {
          if (consumed.size() >= total) {
            notEmpty.signalAll(); // let the other consumer see the end too
            return;
          }
          notEmpty.await(200, TimeUnit.MILLISECONDS);
        }
        consumed.add(redis.lpop(ITEMS));
        notFull.signal();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        lock.unlock();
      }
    }
  }
}
