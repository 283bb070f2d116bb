package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.Warden;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The primitives the lock and synchronizer contract suites do not cover, through Sentinel: two
 * Warden instances contending on the master the sentinels name (the semaphores and the latch:
 * {@code SentinelSemaphoreContractIT}, {@code SentinelLeasedSemaphoreContractIT}, {@code
 * SentinelLatchContractIT}).
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SENTINEL)
class SentinelPrimitivesIT {
  private static final int ROUNDS = 25;

  @Test
  void readersShareAndNeverMeetAWriter(WardenFactory wardens) throws Exception {
    List<Warden> clients = List.of(wardens.create(), wardens.create());
    CriticalSection writers = new CriticalSection();
    AtomicInteger reads = new AtomicInteger();
    StartGate.run(
        8,
        ROUNDS,
        contender -> {
          DistributedReadWriteLock rw = clients.get(contender % 2).readWriteLock("rw");
          if (contender % 4 < 2) {
            rw.writeLock().lock();
            try {
              writers.enter();
            } finally {
              rw.writeLock().unlock();
            }
          } else {
            rw.readLock().lock();
            try {
              assertThat(writers.inside()).as("writers inside").isZero();
              reads.incrementAndGet();
            } finally {
              rw.readLock().unlock();
            }
          }
        });
    writers.assertMutualExclusion(4 * ROUNDS);
    assertThat(reads.get()).isEqualTo(4 * ROUNDS);
  }

  @Test
  void aMultiLockExcludesAndHoldsEveryPart(WardenFactory wardens) throws Exception {
    List<Warden> clients = List.of(wardens.create(), wardens.create());
    List<String> names = List.of("multi-a", "multi-b", "multi-c");
    CriticalSection section = new CriticalSection();
    StartGate.run(
        6,
        ROUNDS,
        contender -> {
          Warden warden = clients.get(contender % 2);
          DistributedLock[] parts =
              names.stream().map(warden::lock).toArray(DistributedLock[]::new);
          DistributedLock all = warden.multiLock(parts);
          all.lock();
          try {
            for (DistributedLock part : parts) {
              assertThat(part.isHeldByCurrentThread()).as(part.getName()).isTrue();
            }
            section.enter();
          } finally {
            all.unlock();
          }
        });
    section.assertMutualExclusion(6 * ROUNDS);
    for (String name : names) {
      assertThat(clients.get(0).lock(name).isLocked()).as(name).isFalse();
    }
  }

  @Test
  // WaitNotInLoop: the test checks what one await call returns
  @SuppressWarnings("WaitNotInLoop")
  void aConditionIsSignalledAcrossClients(WardenFactory wardens) throws Exception {
    DistributedLock waiting = wardens.create().lock("condition");
    DistributedLock signalling = wardens.create().lock("condition");
    CompletableFuture<Boolean> signalled =
        CompletableFuture.supplyAsync(
            () -> {
              waiting.lock();
              try {
                return waiting.newCondition("ready").await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              } finally {
                waiting.unlock();
              }
            });
    Waiters.signalUntilWoken(signalling, "ready", signalled);
    assertThat(signalled.get(10, TimeUnit.SECONDS)).isTrue();
  }
}
