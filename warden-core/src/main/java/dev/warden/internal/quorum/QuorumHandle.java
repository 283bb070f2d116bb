package dev.warden.internal.quorum;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.WardenException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A hold on a majority of a quorum lock's parts, each part an ordinary fixed-lease hold of its own
 * client, valid until {@code validUntil} (the lease minus the drift, counted from when the calls
 * were sent). A renewed hold is renewed here, every third of its lease, on all parts at once, on
 * the quorum's timer: each renewal that reaches a majority before the validity ends starts a new
 * validity; otherwise the hold is lost and the parts still held are given back. A fixed-lease hold
 * is lost when its validity ends (a timer task then). Either way {@link #leaseLost()} completes, on
 * the callback executor, and {@link #isValid()}, the local check, turns false.
 *
 * <p>Thread-safe: its state is guarded by its monitor, never held while waiting. {@code close},
 * {@code extend} and {@code isHeld} cost one round trip to every part, sent at once, and block the
 * caller until the parts answer ({@code isHeld}: or their bound passes).
 */
final class QuorumHandle implements LockHandle {
  private final Quorum quorum;
  private final LockHandle[] parts; // null where the part was not taken
  private final long token;
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private long validUntil; // guarded by this
  private long leaseMillis; // guarded by this
  private boolean renewed; // guarded by this
  private boolean closed; // guarded by this
  private String lostReason; // guarded by this; set once the hold is lost
  private Timer.Scheduled next; // guarded by this: the renewal, or the end of the validity

  QuorumHandle(
      Quorum quorum,
      LockHandle[] parts,
      long token,
      long validUntil,
      long leaseMillis,
      boolean renewed) {
    this.quorum = quorum;
    this.parts = parts;
    this.token = token;
    this.validUntil = validUntil;
    this.leaseMillis = leaseMillis;
    this.renewed = renewed;
    synchronized (this) {
      scheduleNext();
    }
  }

  /** Schedules the renewal of a renewed hold, or the end of a fixed one's validity. Under this. */
  private void scheduleNext() {
    if (next != null) {
      next.cancel();
    }
    if (closed || lostReason != null) {
      return;
    }
    try {
      next =
          renewed
              ? quorum
                  .timer()
                  .schedule(
                      this::renew, TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMillis / 3)))
              : quorum.timer().schedule(this::validityEnded, validUntil - now());
    } catch (RejectedExecutionException e) {
      markLost("the timer of its first part's Warden stopped (that Warden was closed)");
    }
  }

  private long now() {
    return quorum.clock().nanoTime();
  }

  /** On the timer: a fixed lease's validity has ended (unless it was extended meanwhile). */
  private synchronized void validityEnded() {
    if (closed || lostReason != null || renewed) {
      return;
    }
    if (now() - validUntil < 0) {
      scheduleNext(); // extended meanwhile
      return;
    }
    markLost("its lease ran out (it is not renewed)");
  }

  /** On the timer: extends every part by the lease; the verdict comes with the replies. */
  private void renew() {
    long lease;
    synchronized (this) {
      if (closed || lostReason != null || !renewed) {
        return;
      }
      lease = leaseMillis;
    }
    long started = now();
    var unused =
        onAll(part -> part.extend(Duration.ofMillis(lease)), lease)
            .thenAccept(
                extended -> {
                  boolean kept;
                  synchronized (this) {
                    if (closed || lostReason != null) {
                      return;
                    }
                    kept = count(extended) >= quorum.majority() && now() - validUntil < 0;
                    if (kept) {
                      validUntil = Quorum.validUntil(started, lease);
                      scheduleNext();
                    } else {
                      markLost(
                          "a renewal reached fewer than "
                              + quorum.majority()
                              + " of "
                              + quorum.size()
                              + " parts within the validity");
                    }
                  }
                  if (!kept) {
                    var unusedGiveBack = quorum.giveBack(parts);
                  }
                });
  }

  /**
   * Marks the hold lost and completes {@link #leaseLost()} on the callback executor. Under this.
   */
  private void markLost(String reason) {
    lostReason = reason;
    if (next != null) {
      next.cancel();
    }
    quorum.callbacks().execute(() -> lost.complete(null));
  }

  /**
   * Runs {@code call} on every held part at once and waits at most the call bound of {@code
   * leaseMillis}; each entry of the result is the part's answer, or null (not taken, failed, or no
   * reply in time).
   */
  private CompletableFuture<List<Boolean>> onAll(
      Function<LockHandle, Boolean> call, long leaseMillis) {
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      LockHandle part = parts[i];
      calls.add(
          part == null
              ? CompletableFuture.completedFuture(null)
              : quorum.part(i).call(() -> call.apply(part)));
    }
    long bound = TimeUnit.MILLISECONDS.toNanos(Quorum.callBoundMillis(leaseMillis));
    return quorum
        .settle(calls, bound)
        .thenApply(
            ignored -> {
              List<Boolean> answers = new ArrayList<>();
              for (CompletableFuture<Boolean> one : calls) {
                answers.add((one.isDone() && !one.isCompletedExceptionally()) ? one.join() : null);
              }
              return answers;
            });
  }

  private static int count(List<Boolean> answers) {
    int yes = 0;
    for (Boolean answer : answers) {
      yes += Boolean.TRUE.equals(answer) ? 1 : 0;
    }
    return yes;
  }

  /**
   * Whether the hold is still valid as far as this client knows, without a round trip: not closed,
   * not lost, and its validity not ended.
   */
  synchronized boolean isValid() {
    return !closed && lostReason == null && now() - validUntil < 0;
  }

  /** The exception for using this hold after it ended; {@code operation}: what was refused. */
  synchronized LeaseExpiredException expired(String operation) {
    return new LeaseExpiredException(
        quorum.describe()
            + ": cannot "
            + operation
            + ": the quorum hold (fencing token "
            + token
            + ") "
            + (lostReason != null ? "was lost: " + lostReason : "ran past its validity"));
  }

  /** The number of stages waiting on the lost signal, for tests: no call may add one that stays. */
  int lostDependents() {
    return lost.getNumberOfDependents();
  }

  @Override
  public long fencingToken() {
    return token;
  }

  /** Whether a majority of parts still hold the lock for this handle, within the validity. */
  @Override
  public boolean isHeld() {
    long lease;
    synchronized (this) {
      if (!isValid()) {
        return false;
      }
      lease = leaseMillis;
    }
    return count(onAll(LockHandle::isHeld, lease).join()) >= quorum.majority();
  }

  @Override
  public CompletionStage<Void> leaseLost() {
    return lost.minimalCompletionStage();
  }

  @Override
  public boolean extend(Duration leaseTime) {
    long lease = Args.leaseMillis("leaseTime", leaseTime);
    synchronized (this) {
      if (closed || lostReason != null) {
        return false;
      }
      renewed = false; // as for a plain handle: from now on the lease simply runs out
      scheduleNext(); // the end of the current validity, until the parts answer
    }
    long started = now();
    List<Boolean> extended = onAll(part -> part.extend(Duration.ofMillis(lease)), lease).join();
    synchronized (this) {
      if (closed
          || lostReason != null
          || count(extended) < quorum.majority()
          || now() - validUntil >= 0) {
        return false;
      }
      leaseMillis = lease;
      validUntil = Quorum.validUntil(started, lease);
      scheduleNext();
      return true;
    }
  }

  @Override
  public void closeAfter(Duration keepFor) {
    long keep = Args.notNegativeMillis("keepFor", keepFor);
    if (keep == 0) {
      close();
      return;
    }
    end(part -> part.closeAfter(Duration.ofMillis(keep)));
  }

  @Override
  public void close() {
    end(LockHandle::close);
  }

  /** Gives every part back without waiting or throwing: for a hold nobody will use. */
  void abandon() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (next != null) {
        next.cancel();
      }
    }
    var unused = quorum.giveBack(parts);
  }

  /**
   * Ends the hold on every part; throws when the hold was lost or ran past its validity ({@link
   * LeaseExpiredException}), or when fewer than a majority could be ended normally (that, or the
   * first Redis failure).
   */
  private void end(Consumer<LockHandle> ending) {
    boolean expired;
    synchronized (this) {
      if (closed) {
        return;
      }
      if (lostReason == null && now() - validUntil >= 0) {
        markLost("its validity ended before it was released");
      }
      expired = lostReason != null;
      closed = true;
      if (next != null) {
        next.cancel();
      }
    }
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      LockHandle part = parts[i];
      if (part != null) {
        calls.add(
            quorum
                .part(i)
                .call(
                    () -> {
                      ending.accept(part);
                      return null;
                    }));
      }
    }
    int ended = 0;
    WardenException failure = null;
    for (CompletableFuture<Void> call : calls) {
      try {
        call.join();
        ended++;
      } catch (RuntimeException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (failure == null && cause instanceof WardenException warden) {
          failure = warden;
        }
      }
    }
    if (!expired && ended >= quorum.majority()) {
      return;
    }
    if (!expired && failure != null) {
      throw new WardenException(
          quorum.describe() + ": could not release a majority of its parts", failure);
    }
    String why;
    synchronized (this) {
      why = lostReason;
    }
    if (why == null) {
      why = "fewer than " + quorum.majority() + " of " + quorum.size() + " parts still held it";
    }
    throw new LeaseExpiredException(
        quorum.describe()
            + ": the quorum hold had expired or was lost before it was released ("
            + why
            + ")");
  }

  @Override
  public String toString() {
    return "hold of " + quorum.describe() + " (token " + token + ")";
  }
}
