package dev.warden.internal.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.VirtualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The quorum's acquisition and holds in virtual time: three scripted parts answer each call by
 * hand, the timer and clock are virtual, and nothing runs on another thread.
 */
class QuorumAcquisitionTest {
  private static final long LEASE = 10_000; // a call may take 1 s
  private static final Duration BOUND = Duration.ofMillis(Quorum.callBoundMillis(LEASE));

  private final VirtualTime time = new VirtualTime();
  private final List<ScriptedPart> parts =
      List.of(new ScriptedPart(), new ScriptedPart(), new ScriptedPart());
  private final Quorum quorum =
      new Quorum(List.copyOf(parts), "quorum lock q on 3 deployments", time, time, Runnable::run);

  private QuorumAcquisition acquire(boolean renewed, Duration wait) {
    return quorum.acquire(LEASE, renewed, wait.toNanos());
  }

  @Test
  void aMajorityIsAHoldWithTheLargestTokenRaisedOnEveryPartTakenAndValidForTheLeaseLessTheDrift() {
    long started = time.nanoTime();
    QuorumAcquisition acquisition = acquire(false, Duration.ZERO);
    assertThat(parts).allSatisfy(part -> assertThat(part.leases).containsExactly(LEASE));
    parts.get(0).grant(5);
    time.advance(Duration.ofMillis(30));
    parts.get(1).grant(9);
    assertThat(acquisition.result()).as("the third may still answer").isNotDone();
    parts.get(2).refuse();

    QuorumHandle hold = acquisition.result().join();
    assertThat(hold.fencingToken()).isEqualTo(9);
    assertThat(parts.get(0).fences).containsExactly(9L);
    assertThat(parts.get(1).fences).containsExactly(9L);
    assertThat(parts.get(2).fences).isEmpty();
    // valid until the lease less the drift (102 ms), counted from when the calls were sent
    time.advanceTo(started + TimeUnit.MILLISECONDS.toNanos(LEASE - 102) - 1);
    assertThat(hold.isValid()).isTrue();
    assertThat(hold.leaseLost().toCompletableFuture()).isNotDone();
    time.advance(Duration.ofNanos(1));
    assertThat(hold.isValid()).isFalse();
    assertThat(hold.leaseLost().toCompletableFuture())
        .as("a fixed lease that ends completes leaseLost()")
        .isDone();
    assertThat(parts.get(0).granted.get(0).closes).as("nothing given back early").isZero();
  }

  @Test
  void splitVotesGiveBackWhatWasTakenAndTryAgainAfterARandomPauseWithinTheWait() {
    QuorumAcquisition acquisition = acquire(false, Duration.ofSeconds(5));
    ScriptedPart.Handle first = parts.get(0).grant(1);
    parts.get(1).refuse();
    parts.get(2).refuse();
    assertThat(first.closes).as("given back").isOne();
    assertThat(acquisition.result()).isNotDone();

    time.advance(Duration.ofMillis(99));
    assertThat(parts.get(0).acquisitions).as("a pause of 100 to 300 ms").hasSize(1);
    time.advance(Duration.ofMillis(201));
    assertThat(parts).allSatisfy(part -> assertThat(part.acquisitions).hasSize(2));
    parts.get(0).grant(2);
    parts.get(1).grant(3);
    parts.get(2).grant(4);
    assertThat(acquisition.result().join().fencingToken()).isEqualTo(4);
    assertThat(time.pending()).as("only the end of the fixed lease's validity").isOne();
  }

  @Test
  void aGrantPastTheCallBoundDoesNotCountAndIsGivenBackWhenItArrives() {
    QuorumAcquisition acquisition = acquire(false, Duration.ZERO);
    ScriptedPart.Handle taken = parts.get(0).grant(1);
    parts.get(1).refuse();
    time.advance(BOUND.minusMillis(1));
    assertThat(acquisition.result()).isNotDone();
    time.advance(Duration.ofMillis(1));
    assertThat(acquisition.result().join()).as("not acquired: the wait was 0").isNull();
    assertThat(taken.closes).isOne();

    ScriptedPart.Handle late = parts.get(2).grant(2);
    assertThat(late.closes).as("the late grant, given back as it arrives").isOne();
  }

  @Test
  void aRoundWithoutAMajorityEndsTheWaitExactlyAtItsDeadline() {
    long started = time.nanoTime();
    QuorumAcquisition acquisition = acquire(false, Duration.ofMillis(250));
    while (!acquisition.result().isDone()) {
      parts.forEach(ScriptedPart::refuse);
      if (!acquisition.result().isDone()) {
        assertThat(time.runNext()).as("a retry is scheduled").isTrue();
      }
    }
    assertThat(acquisition.result().join()).isNull();
    assertThat(time.since(started)).isEqualTo(Duration.ofMillis(250));
    assertThat(time.pending()).isZero();
  }

  @Test
  void fencesRaisedOnFewerThanAMajorityGiveTheRoundBack() {
    parts.get(0).fenceFails = true;
    parts.get(1).fenceFails = true;
    QuorumAcquisition acquisition = acquire(false, Duration.ZERO);
    List<ScriptedPart.Handle> held =
        List.of(parts.get(0).grant(1), parts.get(1).grant(2), parts.get(2).grant(3));
    assertThat(acquisition.result().join()).isNull();
    assertThat(held).allSatisfy(handle -> assertThat(handle.closes).isOne());
  }

  @Test
  void anAbandonedAcquisitionGivesBackTheHoldsThatArriveLater() {
    QuorumAcquisition acquisition = acquire(false, Duration.ofSeconds(5));
    acquisition.abandon();
    List<ScriptedPart.Handle> held =
        List.of(parts.get(0).grant(1), parts.get(1).grant(2), parts.get(2).grant(3));
    assertThat(acquisition.result()).isCancelled();
    assertThat(held).allSatisfy(handle -> assertThat(handle.closes).isOne());
    assertThat(time.pending()).isZero();
  }

  @Test
  void aRenewedHoldIsExtendedEveryThirdOfItsLeaseUntilAMajorityIsNotThenItIsLost() {
    QuorumAcquisition acquisition = acquire(true, Duration.ZERO);
    List<ScriptedPart.Handle> held =
        List.of(parts.get(0).grant(1), parts.get(1).grant(2), parts.get(2).grant(3));
    QuorumHandle hold = acquisition.result().join();

    time.advance(Duration.ofMillis(LEASE / 3));
    assertThat(held).allSatisfy(handle -> assertThat(handle.extensions).isOne());
    time.advance(Duration.ofMillis(LEASE)); // past the first validity: the renewal moved it
    assertThat(hold.isValid()).isTrue();
    assertThat(held).allSatisfy(handle -> assertThat(handle.extensions).isEqualTo(4));

    held.get(0).extendAnswer = false;
    held.get(1).extendAnswer = false;
    time.advance(Duration.ofMillis(LEASE / 3));
    assertThat(hold.isValid()).isFalse();
    assertThat(hold.leaseLost().toCompletableFuture()).isDone();
    assertThat(held).as("the parts given back").allSatisfy(h -> assertThat(h.closes).isOne());
    assertThat(time.pending()).as("no renewal after the loss").isZero();
  }

  @Test
  void aRenewalWhoseRepliesDoNotComeWithinTheBoundLosesTheHold() {
    QuorumAcquisition acquisition = acquire(true, Duration.ZERO);
    parts.forEach(part -> part.grant(1));
    QuorumHandle hold = acquisition.result().join();
    parts.get(1).silent = true;
    parts.get(2).silent = true;
    time.advance(Duration.ofMillis(LEASE / 3));
    assertThat(hold.isValid()).as("the verdict waits for the bound").isTrue();
    time.advance(BOUND);
    assertThat(hold.isValid()).isFalse();
    assertThat(hold.leaseLost().toCompletableFuture()).isDone();
  }
}
