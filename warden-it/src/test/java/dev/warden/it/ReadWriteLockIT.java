package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Shared readers, exclusive writers, downgrade, no upgrade, no writer starvation, leases. */
@ExtendWith(WardenExtension.class)
class ReadWriteLockIT {

  private static <T> CompletableFuture<T> inThread(java.util.concurrent.Callable<T> body) {
    CompletableFuture<T> result = new CompletableFuture<>();
    new Thread(
            () -> {
              try {
                result.complete(body.call());
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            })
        .start();
    return result;
  }

  @Test
  void readersShareTheLockAndAWriterIsExclusive(WardenFactory wardens) throws Exception {
    DistributedReadWriteLock a = wardens.create().readWriteLock("shared");
    DistributedReadWriteLock b = wardens.create().readWriteLock("shared");
    DistributedReadWriteLock c = wardens.create().readWriteLock("shared");
    ExecutorService bThread = Executors.newSingleThreadExecutor(); // b's holds are its thread's
    try {
      a.readLock().lock();
      assertThat(bThread.submit(() -> b.readLock().tryLock()).get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(c.writeLock().tryLock()).isFalse();
      assertThat(a.readLock().isLocked()).isTrue();
      assertThat(a.writeLock().isLocked()).isFalse();
      a.readLock().unlock();
      assertThat(c.writeLock().tryLock()).as("one reader is left").isFalse();
      bThread.submit(() -> b.readLock().unlock()).get(10, TimeUnit.SECONDS);
      assertThat(c.writeLock().tryLock()).isTrue();
      assertThat(a.readLock().tryLock()).isFalse();
      assertThat(bThread.submit(() -> b.writeLock().tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
      c.writeLock().unlock();
    } finally {
      bThread.shutdownNow();
    }
  }

  @Test
  void readAndWriteHoldsAreReentrantAndTheWriterMayAlsoRead(Warden warden) {
    DistributedReadWriteLock rw = warden.readWriteLock("reentrant-rw");
    rw.writeLock().lock();
    rw.writeLock().lock();
    rw.readLock().lock();
    rw.readLock().lock();
    assertThat(rw.writeLock().getHoldCount()).isEqualTo(2);
    assertThat(rw.readLock().getHoldCount()).isEqualTo(2);
    rw.readLock().unlock();
    rw.readLock().unlock();
    rw.writeLock().unlock();
    rw.writeLock().unlock();
    assertThat(rw.writeLock().isLocked()).isFalse();
    assertThat(rw.readLock().isLocked()).isFalse();
    assertThat(warden.stats().holds()).isZero();
  }

  @Test
  void aDowngradeLetsWaitingReadersInWhileTheWriterStillReads(WardenFactory wardens)
      throws Exception {
    Warden readersWarden = wardens.create();
    DistributedReadWriteLock writer = wardens.create().readWriteLock("downgrade");
    writer.writeLock().lock();
    List<CompletableFuture<Boolean>> readers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DistributedLock read = readersWarden.readWriteLock("downgrade").readLock();
      readers.add(
          inThread(
              () -> {
                boolean got = read.tryLock(20, TimeUnit.SECONDS);
                if (got) {
                  read.unlock();
                }
                return got;
              }));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> readersWarden.stats().subscriptions() == 1);
    writer.readLock().lock(); // the writer takes a read hold...
    writer.writeLock().unlock(); // ...and gives up writing: the readers come in now
    for (CompletableFuture<Boolean> reader : readers) {
      assertThat(reader.get(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(writer.readLock().getHoldCount()).as("still reading").isEqualTo(1);
    writer.readLock().unlock();
  }

  @Test
  void aReadHolderAskingForTheWriteLockFailsFastInsteadOfDeadlocking(
      RedisServer redis, Warden warden) {
    DistributedReadWriteLock rw = warden.readWriteLock("no-upgrade");
    rw.readLock().lock();
    long scriptsBefore = redis.commandCalls().getOrDefault("evalsha", 0L);
    assertThatThrownBy(() -> rw.writeLock().lock())
        .isExactlyInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("write lock 'no-upgrade'")
        .hasMessageContaining("cannot be upgraded");
    assertThatThrownBy(() -> rw.writeLock().tryLock(5, TimeUnit.SECONDS))
        .isExactlyInstanceOf(IllegalMonitorStateException.class);
    assertThat(redis.commandCalls().getOrDefault("evalsha", 0L))
        .as("refused by the client without a round trip: no script ran, nothing waited")
        .isEqualTo(scriptsBefore);
    assertThat(rw.readLock().getHoldCount()).isEqualTo(1);
    rw.readLock().unlock();
  }

  @Test
  void aWaitingWriterIsNotStarvedByOverlappingReaders(WardenFactory wardens) throws Exception {
    Warden readersWarden = wardens.create();
    AtomicBoolean stop = new AtomicBoolean();
    List<CompletableFuture<Integer>> readers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DistributedLock read = readersWarden.readWriteLock("starve").readLock();
      readers.add(
          inThread(
              () -> {
                int reads = 0;
                while (!stop.get()) {
                  read.lock();
                  try {
                    reads++;
                  } finally {
                    read.unlock();
                  }
                }
                return reads;
              }));
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> readersWarden.readWriteLock("starve").readLock().isLocked());
    DistributedLock write = wardens.create().readWriteLock("starve").writeLock();
    long start = System.nanoTime();
    boolean got = write.tryLock(10, TimeUnit.SECONDS);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    stop.set(true);
    assertThat(got).isTrue();
    assertThat(waitedMillis).isLessThan(5_000L);
    write.unlock();
    for (CompletableFuture<Integer> reader : readers) {
      assertThat(reader.get(20, TimeUnit.SECONDS)).isPositive();
    }
  }

  @Test
  void anExpiredReadHoldStopsCountingAndItsUnlockSaysSo(WardenFactory wardens) throws Exception {
    DistributedLock read = wardens.create().readWriteLock("read-lease").readLock();
    DistributedLock write = wardens.create().readWriteLock("read-lease").writeLock();
    read.lock(300, TimeUnit.MILLISECONDS);
    long start = System.nanoTime();
    assertThat(write.tryLock(5, 5, TimeUnit.SECONDS)).isTrue();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 3_000L);
    assertThatThrownBy(read::unlock).isInstanceOf(LeaseExpiredException.class);
    write.unlock();
  }

  @Test
  void aWriterReleaseWakesAllWaitingReadersTogether(WardenFactory wardens) throws Exception {
    int readerCount = 4;
    DistributedLock write = wardens.create().readWriteLock("together").writeLock();
    write.lock();
    CyclicBarrier allInside = new CyclicBarrier(readerCount);
    List<CompletableFuture<Boolean>> readers = new ArrayList<>();
    List<Warden> clients = List.of(wardens.create(), wardens.create());
    for (int i = 0; i < readerCount; i++) {
      DistributedLock read = clients.get(i % 2).readWriteLock("together").readLock();
      readers.add(
          inThread(
              () -> {
                read.lock();
                try {
                  allInside.await(10, TimeUnit.SECONDS); // every reader inside at once
                  return true;
                } finally {
                  read.unlock();
                }
              }));
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                clients.get(0).stats().subscriptions() == 1
                    && clients.get(1).stats().subscriptions() == 1);
    write.unlock();
    for (CompletableFuture<Boolean> reader : readers) {
      assertThat(reader.get(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void readsAndWritesShareOneRisingSequenceOfFencingTokens(WardenFactory wardens) throws Exception {
    DistributedReadWriteLock rw = wardens.create().readWriteLock("tokens");
    List<Long> tokens = new ArrayList<>();
    rw.writeLock().lock();
    tokens.add(rw.writeLock().fencingToken());
    rw.writeLock().unlock();
    rw.readLock().lock();
    tokens.add(rw.readLock().fencingToken());
    DistributedLock otherRead = wardens.create().readWriteLock("tokens").readLock();
    tokens.add(
        inThread(
                () -> {
                  otherRead.lock();
                  long token = otherRead.fencingToken();
                  otherRead.unlock();
                  return token;
                })
            .get(10, TimeUnit.SECONDS));
    rw.readLock().unlock();
    rw.writeLock().lock();
    tokens.add(rw.writeLock().fencingToken());
    rw.writeLock().unlock();
    assertThat(tokens).isSorted().doesNotHaveDuplicates().hasSize(4);
    assertThatThrownBy(() -> rw.readLock().fencingToken())
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("read lock 'tokens'");
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 600)
  void theWatchdogKeepsReadHoldsAliveAndTheLockReportsTheirTimeToLive(WardenFactory wardens) {
    DistributedLock read = wardens.create().readWriteLock("renewed-read").readLock();
    DistributedLock write = wardens.create().readWriteLock("renewed-read").writeLock();
    assertThat(read.remainTimeToLive()).isEqualTo(-2);
    read.lock();
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> read.remainTimeToLive() > 0 && !write.tryLock());
    read.unlock();
    assertThat(read.isLocked()).isFalse();
    assertThat(write.tryLock()).isTrue();
    write.unlock();
  }

  @Test
  void theReadLockHasNoCondition(Warden warden) {
    assertThatThrownBy(() -> warden.readWriteLock("no-condition").readLock().newCondition())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
