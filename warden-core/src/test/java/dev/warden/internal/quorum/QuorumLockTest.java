package dev.warden.internal.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeaseExpiredException;
import dev.warden.internal.base.VirtualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The quorum lock's thread-bound holds in virtual time, over three parts that grant at once: a
 * nested lock re-enters only within the hold's validity, and re-entries leave nothing behind.
 */
class QuorumLockTest {
  private static final long WATCHDOG = 3_000;

  private final VirtualTime time = new VirtualTime();
  private final List<ScriptedPart> parts =
      List.of(
          ScriptedPart.grantingAtOnce(7),
          ScriptedPart.grantingAtOnce(7),
          ScriptedPart.grantingAtOnce(7));
  private final QuorumLock lock =
      new QuorumLock(
          new Quorum(
              List.copyOf(parts), "quorum lock q on 3 deployments", time, time, Runnable::run),
          WATCHDOG);

  @Test
  void aNestedLockReentersWithinTheValidityAndThrowsOnceItEndedKeepingTheCountToUnlock() {
    lock.lock(300, TimeUnit.MILLISECONDS);
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.getHoldCount()).isEqualTo(2);
    assertThat(parts.get(0).acquisitions).as("a re-entry asks no part").hasSize(1);

    time.advance(Duration.ofMillis(300)); // the lease less the drift has passed
    assertThatThrownBy(lock::tryLock)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("cannot acquire again")
        .hasMessageContaining("fencing token 7");
    assertThatThrownBy(() -> lock.tryLock(1, 300, TimeUnit.SECONDS))
        .isInstanceOf(LeaseExpiredException.class);
    assertThat(parts.get(0).acquisitions).as("no fresh quorum hold was taken").hasSize(1);
    assertThat(lock.getHoldCount()).isZero();
    assertThatThrownBy(lock::fencingToken).isInstanceOf(LeaseExpiredException.class);

    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class); // 2 -> 1
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class); // the last
    assertThat(parts).allSatisfy(part -> assertThat(part.granted.get(0).closes).isOne());
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LeaseExpiredException.class);
    assertThat(lock.tryLock()).as("the thread may take it afresh").isTrue();
    lock.unlock();
  }

  @Test
  void aNestedLockAfterAFailedRenewalThrowsInsteadOfTakingAFreshHold() {
    lock.lock();
    parts.get(0).granted.get(0).extendAnswer = false;
    parts.get(1).granted.get(0).extendAnswer = false;
    time.advance(Duration.ofMillis(WATCHDOG / 3)); // the renewal reaches one part of three
    assertThatThrownBy(lock::lock)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("a renewal reached fewer than 2 of 3 parts");
    assertThat(parts.get(0).acquisitions).hasSize(1);
    assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
    assertThat(lock.getHoldCount()).isZero();
  }

  @Test
  void reentriesAndUnlocksAddNothingThatStaysToTheLostSignal() {
    lock.lock();
    QuorumHandle hold = lock.threadHold();
    for (int i = 0; i < 1_000; i++) {
      lock.lock();
      assertThat(lock.getHoldCount()).isEqualTo(2);
      lock.unlock();
    }
    assertThat(hold.lostDependents()).isZero();
    lock.unlock();
    assertThat(lock.threadHold()).isNull();
  }
}
