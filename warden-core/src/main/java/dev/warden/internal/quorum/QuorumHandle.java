package dev.warden.internal.quorum;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.WardenException;
import dev.warden.internal.base.Args;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A hold on a majority of a quorum lock's parts, each part an ordinary fixed-lease hold of its own
 * client. A renewed hold is renewed here, every third of its lease, on all parts at once: each
 * renewal that reaches a majority before the validity ends (the lease minus the drift, counted from
 * when the renewal was sent) starts a new validity; otherwise the hold is lost, {@link
 * #leaseLost()} completes and the parts still held are given back. A fixed-lease hold simply runs
 * out.
 *
 * <p>Thread-safe. {@code close}, {@code extend} and {@code isHeld} cost one round trip to every
 * part, sent at once.
 */
final class QuorumHandle implements LockHandle {
  private static final ScheduledExecutorService RENEWALS =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "warden-quorum-renewal");
            thread.setDaemon(true);
            return thread;
          });

  private final Quorum quorum;
  private final LockHandle[] parts; // null where the part was not taken
  private final long token;
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private long validUntil; // guarded by this
  private long leaseMillis; // guarded by this
  private boolean renewed; // guarded by this
  private boolean closed; // guarded by this
  private ScheduledFuture<?> renewal; // guarded by this

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
      scheduleRenewal();
    }
  }

  private void scheduleRenewal() {
    if (renewed && !closed) {
      renewal = RENEWALS.schedule(this::renew, Math.max(1, leaseMillis / 3), TimeUnit.MILLISECONDS);
    }
  }

  /** Extends every part by the lease, on the renewal thread; never blocks it. */
  private void renew() {
    long lease;
    synchronized (this) {
      if (closed || lost.isDone()) {
        return;
      }
      lease = leaseMillis;
    }
    long started = quorum.clock().nanoTime();
    var unused =
        onAll(part -> part.extend(Duration.ofMillis(lease)), Quorum.callBoundMillis(lease))
            .thenAccept(
                extended -> {
                  boolean kept;
                  synchronized (this) {
                    if (closed) {
                      return;
                    }
                    kept =
                        count(extended) >= quorum.majority()
                            && quorum.clock().nanoTime() - validUntil < 0;
                    if (kept) {
                      validUntil = Quorum.validUntil(started, lease);
                      scheduleRenewal();
                    }
                  }
                  if (!kept) {
                    loseHold();
                  }
                });
  }

  private void loseHold() {
    lost.complete(null);
    for (LockHandle part : parts) {
      if (part != null) {
        var unused = CompletableFuture.runAsync(() -> closeQuietly(part), Quorum.CALLS);
      }
    }
  }

  private static void closeQuietly(LockHandle part) {
    try {
      part.close();
    } catch (RuntimeException e) {
      // already gone, or unreachable: its lease ends it
    }
  }

  /**
   * Runs {@code call} on every held part at once and waits at most {@code boundMillis}; each entry
   * of the result is the part's answer, or null (not taken, failed, or no reply in time).
   */
  private CompletableFuture<List<Boolean>> onAll(
      Function<LockHandle, Boolean> call, long boundMillis) {
    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
    for (LockHandle part : parts) {
      calls.add(
          part == null
              ? CompletableFuture.completedFuture(null)
              : CompletableFuture.supplyAsync(() -> call.apply(part), Quorum.CALLS));
    }
    return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
        .handle((ignored, failure) -> null)
        .completeOnTimeout(null, boundMillis, TimeUnit.MILLISECONDS)
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

  @Override
  public long fencingToken() {
    return token;
  }

  /** Whether a majority of parts still hold the lock for this handle, within the validity. */
  @Override
  public boolean isHeld() {
    synchronized (this) {
      if (closed || lost.isDone() || quorum.clock().nanoTime() - validUntil >= 0) {
        return false;
      }
    }
    List<Boolean> held = onAll(LockHandle::isHeld, Quorum.callBoundMillis(leaseMillis())).join();
    return count(held) >= quorum.majority();
  }

  private synchronized long leaseMillis() {
    return leaseMillis;
  }

  @Override
  public CompletionStage<Void> leaseLost() {
    return lost.minimalCompletionStage();
  }

  @Override
  public boolean extend(Duration leaseTime) {
    long lease = Args.leaseMillis("leaseTime", leaseTime);
    synchronized (this) {
      if (closed || lost.isDone()) {
        return false;
      }
      renewed = false; // as for a plain handle: from now on the lease simply runs out
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    long started = quorum.clock().nanoTime();
    List<Boolean> extended =
        onAll(part -> part.extend(Duration.ofMillis(lease)), Quorum.callBoundMillis(lease)).join();
    synchronized (this) {
      if (count(extended) < quorum.majority() || quorum.clock().nanoTime() - validUntil >= 0) {
        return false;
      }
      leaseMillis = lease;
      validUntil = Quorum.validUntil(started, lease);
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

  /**
   * Ends the hold on every part; throws when fewer than a majority could be ended normally: {@link
   * LeaseExpiredException} if the hold had already been lost, else the first Redis failure.
   */
  private void end(java.util.function.Consumer<LockHandle> ending) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (renewal != null) {
        renewal.cancel(false);
      }
    }
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (LockHandle part : parts) {
      if (part != null) {
        calls.add(CompletableFuture.runAsync(() -> ending.accept(part), Quorum.CALLS));
      }
    }
    int ended = 0;
    RuntimeException failure = null;
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
    if (lost.isDone() || ended < quorum.majority()) {
      if (failure != null && !lost.isDone()) {
        throw new WardenException(
            quorum.describe() + ": could not release a majority of its parts", failure);
      }
      throw new LeaseExpiredException(
          quorum.describe()
              + ": the quorum hold had expired or was lost before it was released (fewer than "
              + quorum.majority()
              + " of "
              + quorum.size()
              + " parts still held it)");
    }
  }

  @Override
  public String toString() {
    return "hold of " + quorum.describe() + " (token " + token + ")";
  }
}
