package dev.warden.internal.quorum;

import dev.warden.LockHandle;
import dev.warden.WardenException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a quorum lock: rounds of calls to every part until one reaches a majority
 * within its validity, or the wait runs out. Each round sends every part's {@code tryAcquire} at
 * once and decides when all have answered or their bound (a tenth of the lease) has passed: with a
 * majority it raises the fence of every part taken to the largest token (bounded alike), and keeps
 * the hold if a majority stands and the validity has not ended; otherwise it gives back what it
 * took (a late grant when it arrives) and tries again after 100 to 300 ms, while the wait lasts.
 *
 * <p>Never blocks: each step runs on whichever thread ends the one before (a part's quorum thread,
 * the timer, a Redis reply) and only sends. The caller waits for {@link #result()}. Thread-safe:
 * the rounds follow each other, and {@link #abandon()} only cancels the result, which every step
 * checks.
 */
final class QuorumAcquisition {
  private static final Logger log = LoggerFactory.getLogger(QuorumAcquisition.class);

  private final Quorum quorum;
  private final long leaseMillis;
  private final boolean renewed;
  private final long waitNanos;
  private final long deadline;
  private final long boundNanos;
  private final CompletableFuture<QuorumHandle> result = new CompletableFuture<>();

  QuorumAcquisition(
      Quorum quorum, long leaseMillis, boolean renewed, long waitNanos, long startedNanos) {
    this.quorum = quorum;
    this.leaseMillis = leaseMillis;
    this.renewed = renewed;
    this.waitNanos = waitNanos;
    this.deadline = startedNanos + waitNanos;
    this.boundNanos = TimeUnit.MILLISECONDS.toNanos(Quorum.callBoundMillis(leaseMillis));
  }

  /** The hold, or null when the wait ran out; fails only when the first part's client closed. */
  CompletableFuture<QuorumHandle> result() {
    return result;
  }

  /**
   * Abandons the acquisition (its caller was interrupted, or cancelled it): a hold it takes from
   * now on is given back, and so is one it had just delivered.
   */
  void abandon() {
    if (!result.cancel(false) && !result.isCompletedExceptionally()) {
      QuorumHandle delivered = result.join();
      if (delivered != null) {
        delivered.abandon();
      }
    }
  }

  /** One round: every part at once. */
  void attempt() {
    if (result.isDone()) {
      return;
    }
    long started = quorum.clock().nanoTime();
    List<CompletableFuture<Optional<LockHandle>>> calls = new ArrayList<>();
    for (int i = 0; i < quorum.size(); i++) {
      calls.add(quorum.part(i).tryAcquire(leaseMillis));
    }
    var unused =
        quorum
            .settle(calls, boundNanos)
            .thenRun(() -> counted(calls, started, started + boundNanos));
  }

  /** The calls have answered or ran past their bound: a majority, or a give-back and a retry. */
  private void counted(
      List<CompletableFuture<Optional<LockHandle>>> calls, long started, long boundEnd) {
    LockHandle[] held = new LockHandle[calls.size()];
    int count = 0;
    long token = 0;
    for (int i = 0; i < calls.size(); i++) {
      CompletableFuture<Optional<LockHandle>> call = calls.get(i);
      if (!call.isDone()) {
        quorum.giveBackWhenDone(i, call); // past its bound: it may still succeed
      } else if (!call.isCompletedExceptionally()) {
        held[i] = call.join().orElse(null);
        if (held[i] != null) {
          count++;
          token = Math.max(token, held[i].fencingToken());
        }
      } else {
        log.debug("{}: part {} failed: {}", quorum.describe(), i, Quorum.failure(call));
      }
    }
    long validUntil = Quorum.validUntil(started, leaseMillis);
    if (result.isDone() || count < quorum.majority() || expired(validUntil)) {
      giveBackThenRetry(held);
      return;
    }
    // the next majority overlaps these parts, so it must mint above this token on every one
    List<CompletableFuture<?>> raises = new ArrayList<>();
    for (int i = 0; i < held.length; i++) {
      raises.add(held[i] == null ? null : quorum.part(i).raiseFence(token));
    }
    List<CompletableFuture<?>> sent = new ArrayList<>();
    raises.forEach(
        raise -> {
          if (raise != null) {
            sent.add(raise);
          }
        });
    long fenceToken = token;
    var unused =
        quorum
            .settle(sent, boundEnd + boundNanos - quorum.clock().nanoTime())
            .thenRun(() -> raised(held, raises, fenceToken, validUntil));
  }

  /** The fences are raised, or their bound passed: the hold, or a give-back and a retry. */
  private void raised(
      LockHandle[] held, List<CompletableFuture<?>> raises, long token, long validUntil) {
    int standing = 0;
    for (int i = 0; i < raises.size(); i++) {
      CompletableFuture<?> raise = raises.get(i);
      if (raise != null && raise.isDone() && !raise.isCompletedExceptionally()) {
        standing++;
      } else if (raise != null) {
        log.warn(
            "{}: could not raise the fence of part {}: {}",
            quorum.describe(),
            i,
            Quorum.failure(raise));
      }
    }
    if (result.isDone() || standing < quorum.majority() || expired(validUntil)) {
      giveBackThenRetry(held);
      return;
    }
    QuorumHandle handle = new QuorumHandle(quorum, held, token, validUntil, leaseMillis, renewed);
    if (!result.complete(handle)) {
      handle.abandon(); // abandoned meanwhile
    }
  }

  private boolean expired(long validUntil) {
    return quorum.clock().nanoTime() - validUntil >= 0;
  }

  /**
   * Gives back what a round took, and goes on once that is done or a call bound has passed: so a
   * caller that hears "not acquired" finds the parts free in the normal case, and a frozen part
   * delays it by one bound at most (its lease ends what the give-back could not).
   */
  private void giveBackThenRetry(LockHandle[] held) {
    var unused = quorum.settle(List.of(quorum.giveBack(held)), boundNanos).thenRun(this::retry);
  }

  /** After a round without a hold: ends at the deadline, else the next round after a pause. */
  private void retry() {
    if (result.isDone()) {
      return;
    }
    long left = waitNanos < 0 ? Long.MAX_VALUE : deadline - quorum.clock().nanoTime();
    if (left <= 0) {
      result.complete(null);
      return;
    }
    // randomized, so that contenders that split the votes do not collide again
    long pause = TimeUnit.MILLISECONDS.toNanos(100 + ThreadLocalRandom.current().nextLong(201));
    try {
      var unused = quorum.timer().schedule(this::attempt, Math.min(left, pause));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new WardenException(
              quorum.describe() + ": cannot try again: the Warden of its first part is closed", e));
    }
  }
}
