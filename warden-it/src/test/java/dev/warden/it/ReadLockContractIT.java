package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.Warden;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract of the read lock of {@link Warden#readWriteLock(String)}: shared among readers of
 * any client, reentrant per thread, with fencing tokens, owned (a non-owner's unlock throws), and
 * exclusive of writers. The write lock runs the exclusive {@link LockContract}.
 */
@ExtendWith(WardenExtension.class)
class ReadLockContractIT {
  private static final int CLIENTS = 2;
  private static final int THREADS_PER_CLIENT = 4;

  private static DistributedLock readLockOf(Warden warden, String name) {
    return warden.readWriteLock(name).readLock();
  }

  @Test
  void readersOfTwoClientsAreAllInsideAtOnce(WardenFactory wardens) throws Exception {
    List<DistributedLock> locks = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      locks.add(readLockOf(wardens.create(), "shared"));
    }
    int readers = CLIENTS * THREADS_PER_CLIENT;
    CountDownLatch allInside = new CountDownLatch(readers);
    CriticalSection section = new CriticalSection();
    StartGate.run(
        readers,
        1,
        Duration.ofSeconds(60),
        contender -> {
          DistributedLock lock = locks.get(contender % CLIENTS);
          lock.lock();
          try {
            // each stays inside until every reader is: a read lock that excluded would never let
            // them all in
            section.enter(1, () -> awaitQuietly(allInside));
          } finally {
            lock.unlock();
          }
        });
    assertThat(section.maxInside()).isEqualTo(readers);
    assertThat(locks.get(0).isLocked()).isFalse();
  }

  @Test
  void aWriterNeverOverlapsAReaderOrAnotherWriter(WardenFactory wardens) throws Exception {
    List<Warden> clients = List.of(wardens.create(), wardens.create());
    int contenders = CLIENTS * THREADS_PER_CLIENT;
    // a writer enters with more weight than all the others together: any overlap shows
    int writerWeight = contenders;
    CriticalSection section = new CriticalSection();
    StartGate.run(
        contenders,
        40,
        contender -> {
          boolean writer = contender % 2 == 0;
          DistributedReadWriteLock rw = clients.get(contender % CLIENTS).readWriteLock("mixed");
          DistributedLock lock = writer ? rw.writeLock() : rw.readLock();
          lock.lock();
          try {
            section.enter(writer ? writerWeight : 1);
          } finally {
            lock.unlock();
          }
        });
    section.assertNeverAbove(writerWeight);
    assertThat(section.maxInside()).as("the writers got in").isEqualTo(writerWeight);
  }

  @Test
  void readHoldsAreReentrantPerThreadAndTheLastUnlockFreesTheLock(Warden warden) {
    DistributedLock lock = readLockOf(warden, "reentrant-read");
    lock.lock();
    lock.lock();
    assertThat(lock.getHoldCount()).isEqualTo(2);
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    lock.unlock();
    assertThat(lock.isLocked()).isTrue();
    assertThat(lock.getHoldCount()).isOne();
    lock.unlock();
    assertThat(lock.isLocked()).isFalse();
    assertThat(warden.stats().holds()).isZero();
  }

  @Test
  void eachReaderGetsItsOwnRisingTokenAndReentryKeepsIt(WardenFactory wardens) throws Exception {
    DistributedLock first = readLockOf(wardens.create(), "read-tokens");
    DistributedLock second = readLockOf(wardens.create(), "read-tokens");
    first.lock();
    try {
      long firstToken = first.fencingToken();
      first.lock();
      assertThat(first.fencingToken()).as("a reentrant hold keeps its token").isEqualTo(firstToken);
      first.unlock();
      long secondToken =
          Blocking.inThread(
                  () -> {
                    second.lock();
                    try {
                      return second.fencingToken();
                    } finally {
                      second.unlock();
                    }
                  })
              .get(10, TimeUnit.SECONDS);
      assertThat(firstToken).isPositive();
      assertThat(secondToken).isGreaterThan(firstToken);
    } finally {
      first.unlock();
    }
  }

  @Test
  void unlockByAThreadWithoutAReadHoldThrowsNamingTheLockAndKeepsTheHold(WardenFactory wardens)
      throws Exception {
    DistributedLock lock = readLockOf(wardens.create(), "read-owned");
    DistributedLock otherClients = readLockOf(wardens.create(), "read-owned");
    lock.lock();
    try {
      CompletableFuture<Void> stranger =
          Blocking.inThread(
              () -> {
                Thread.currentThread().setName("stranger-reader");
                lock.unlock();
                return null;
              });
      assertThatThrownBy(() -> stranger.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isExactlyInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("read lock 'read-owned'")
          .hasMessageContaining("stranger-reader");
      assertThatThrownBy(otherClients::unlock)
          .isExactlyInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("'read-owned'");
      assertThat(lock.isHeldByCurrentThread()).isTrue();
      assertThat(lock.getHoldCount()).isOne();
    } finally {
      lock.unlock();
    }
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  void aWriterWaitsWhileAnyReaderHoldsAndGetsInAfterTheLast(WardenFactory wardens)
      throws Exception {
    DistributedLock reader = readLockOf(wardens.create(), "read-then-write");
    DistributedLock otherReader = readLockOf(wardens.create(), "read-then-write");
    DistributedLock writer = wardens.create().readWriteLock("read-then-write").writeLock();
    reader.lock();
    long readerToken = reader.fencingToken();
    CountDownLatch otherHolds = new CountDownLatch(1);
    CountDownLatch otherMayLeave = new CountDownLatch(1);
    CompletableFuture<Void> otherLeft =
        Blocking.inThread(
            () -> {
              otherReader.lock();
              otherHolds.countDown();
              otherMayLeave.await();
              otherReader.unlock();
              return null;
            });
    assertThat(otherHolds.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(writer.tryLock()).isFalse();
    CompletableFuture<Long> written =
        Blocking.inThread(
            () -> {
              writer.lock();
              try {
                return writer.fencingToken();
              } finally {
                writer.unlock();
              }
            });
    reader.unlock();
    assertThat(writer.tryLock()).as("one reader is left").isFalse();
    assertThat(written).isNotDone();
    otherMayLeave.countDown(); // the last reader leaves
    otherLeft.get(10, TimeUnit.SECONDS);
    assertThat(written.get(20, TimeUnit.SECONDS)).isGreaterThan(readerToken);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    latch.countDown();
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not every reader got in: " + latch.getCount() + " left");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
