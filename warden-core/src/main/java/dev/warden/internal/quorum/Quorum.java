package dev.warden.internal.quorum;

import dev.warden.LockHandle;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redlock algorithm's parameters over the parts of one quorum lock, and what its steps share:
 * one attempt takes every part at once, each call bounded by a tenth of the lease; it succeeds with
 * a majority of parts and a positive validity (lease minus elapsed minus drift), and otherwise
 * gives back every part, including those whose call ran past its bound (they may still succeed, and
 * are given back when they do). {@link QuorumAcquisition} runs the attempts, {@link QuorumHandle}
 * the holds.
 *
 * <p>Its seams are those of the first part's client: its {@link Clock}, its {@link Timer} (bounds,
 * back-offs, renewals) and its callback executor. Nothing here blocks. Thread-safe.
 */
final class Quorum {
  private static final Logger log = LoggerFactory.getLogger(Quorum.class);

  private final List<Part> parts;
  private final String describe;
  private final Clock clock;
  private final Timer timer;
  private final Executor callbacks;

  /**
   * @param callbacks completes the futures users see ({@code acquireAsync}, {@code leaseLost()})
   */
  Quorum(List<Part> parts, String describe, Clock clock, Timer timer, Executor callbacks) {
    this.parts = List.copyOf(parts);
    this.describe = describe;
    this.clock = clock;
    this.timer = timer;
    this.callbacks = callbacks;
  }

  String describe() {
    return describe;
  }

  Clock clock() {
    return clock;
  }

  Timer timer() {
    return timer;
  }

  Executor callbacks() {
    return callbacks;
  }

  int size() {
    return parts.size();
  }

  Part part(int index) {
    return parts.get(index);
  }

  /** The number of parts a hold needs: more than half. */
  int majority() {
    return parts.size() / 2 + 1;
  }

  /** The clock drift allowed for: 1 % of the lease plus 2 ms (the Redlock specification). */
  static long driftMillis(long leaseMillis) {
    return leaseMillis / 100 + 2;
  }

  /** How long one part's call may take: a tenth of the lease, at least 10 ms. */
  static long callBoundMillis(long leaseMillis) {
    return Math.max(10, leaseMillis / 10);
  }

  /**
   * The moment (on {@link Clock}) until which a hold taken by calls sent at {@code startedNanos} is
   * valid: the lease minus the drift, counted from the moment the calls were sent.
   */
  static long validUntil(long startedNanos, long leaseMillis) {
    return startedNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis - driftMillis(leaseMillis));
  }

  /**
   * Starts acquiring a majority within {@code waitNanos} (negative: without limit), retrying after
   * a randomized pause; its result is the hold, or null when not in time.
   */
  QuorumAcquisition acquire(long leaseMillis, boolean renewed, long waitNanos) {
    QuorumAcquisition acquisition =
        new QuorumAcquisition(this, leaseMillis, renewed, waitNanos, clock.nanoTime());
    acquisition.attempt();
    return acquisition;
  }

  /**
   * Completes when every call is done or {@code boundNanos} has passed on the timer, whichever is
   * first; the caller then reads what came in. Never fails: with the timer shut down (its client
   * closed) it completes at once.
   */
  CompletableFuture<Void> settle(List<? extends CompletableFuture<?>> calls, long boundNanos) {
    CompletableFuture<Void> settled = new CompletableFuture<>();
    var unused =
        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
            .whenComplete((all, failure) -> settled.complete(null));
    if (!settled.isDone()) {
      try {
        Timer.Scheduled bound = timer.schedule(() -> settled.complete(null), boundNanos);
        var unusedToo = settled.whenComplete((ignored, failure) -> bound.cancel());
      } catch (RejectedExecutionException closed) {
        settled.complete(null);
      }
    }
    return settled;
  }

  /**
   * Gives back every hold taken ({@code held[i]} of part i, or null), each on its part's threads;
   * completes when all are done. Failures are logged (the parts' leases end them).
   */
  CompletableFuture<Void> giveBack(LockHandle[] held) {
    List<CompletableFuture<?>> closes = new ArrayList<>();
    for (int i = 0; i < held.length; i++) {
      if (held[i] != null) {
        closes.add(close(i, held[i]));
      }
    }
    return CompletableFuture.allOf(closes.toArray(new CompletableFuture<?>[0]));
  }

  /** Gives back the hold a late call of part {@code index} brings, if it brings one. */
  void giveBackWhenDone(int index, CompletableFuture<Optional<LockHandle>> call) {
    var unused =
        call.thenAccept(
            late -> {
              if (late.isPresent()) {
                var unusedClose = close(index, late.get());
              }
            });
  }

  /** Ends a part's hold on the part's threads; a failure is logged: the part's lease ends it. */
  CompletableFuture<?> close(int index, LockHandle handle) {
    return parts
        .get(index)
        .call(
            () -> {
              try {
                handle.close();
              } catch (RuntimeException e) {
                log.debug(
                    "{}: part {} could not be given back; it expires with its lease: {}",
                    describe,
                    index,
                    e.toString());
              }
              return null;
            });
  }

  /** What a part's call came to, for a log line. */
  static String failure(CompletableFuture<?> future) {
    if (!future.isDone()) {
      return "no reply in time";
    }
    try {
      future.join();
      return "none";
    } catch (RuntimeException e) {
      return String.valueOf(e.getCause() == null ? e : e.getCause());
    }
  }
}
