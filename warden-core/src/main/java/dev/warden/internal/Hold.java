package dev.warden.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What this client knows of one owner's hold on one lock: its token, its count, whether the lease
 * keeper renews it, and whether it is known to be lost.
 *
 * <p>The count is changed only by the owner (its thread, or the handle under its own lock); the
 * state is changed by the owner and by the lease keeper, with compare-and-set.
 */
final class Hold {
  enum State {
    HELD,
    RELEASING,
    ENDED,
    LOST
  }

  final LockDriver driver;
  final String owner;
  final long token;
  /** The lease the hold was taken with, in ms; negative when the lease keeper renews it. */
  final long leaseMillis;
  private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private volatile int count;
  private volatile boolean renewed;
  private volatile long leaseDeadlineNanos;
  private volatile String lostReason;
  private volatile boolean releaseInDoubt;
  // what a renewal sends for this hold, encoded once when the lease keeper takes the hold
  private byte[][] renewalKeys;
  private byte[] renewalOwner;

  Hold(
      LockDriver driver,
      String owner,
      long token,
      int count,
      long leaseMillis,
      long leaseDeadlineNanos) {
    this.driver = driver;
    this.leaseMillis = leaseMillis;
    this.owner = owner;
    this.token = token;
    this.count = count;
    this.leaseDeadlineNanos = leaseDeadlineNanos;
  }

  int count() {
    return count;
  }

  void count(int count) {
    this.count = count;
  }

  boolean renewed() {
    return renewed;
  }

  void renewed(boolean renewed) {
    this.renewed = renewed;
  }

  /** Returns the monotonic time after which Redis may have expired the hold. */
  long leaseDeadlineNanos() {
    return leaseDeadlineNanos;
  }

  /** Whether this is an explicit (not renewed) lease that has run out as asked. */
  boolean explicitLeaseRanOut() {
    return !renewed() && System.nanoTime() - leaseDeadlineNanos() >= 0;
  }

  /** Moves the local lease deadline forward (never back) after a successful renewal. */
  void extendLeaseDeadline(long deadlineNanos) {
    if (deadlineNanos - leaseDeadlineNanos > 0) {
      leaseDeadlineNanos = deadlineNanos;
    }
  }

  /** Encodes what a renewal sends for this hold; called by the lease keeper as it takes the hold. */
  void encodeRenewal() {
    List<String> keys = driver.renewKeys();
    byte[][] encoded = new byte[keys.size()][];
    for (int i = 0; i < encoded.length; i++) {
      encoded[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
    }
    renewalKeys = encoded;
    renewalOwner = owner.getBytes(StandardCharsets.UTF_8);
  }

  /** The keys of this hold's renewal ({@link LockDriver#renewKeys()}), UTF-8 encoded. */
  byte[][] renewalKeys() {
    return renewalKeys;
  }

  /** The owner as this hold's renewal sends it, UTF-8 encoded. */
  byte[] renewalOwner() {
    return renewalOwner;
  }

  State state() {
    return state.get();
  }

  boolean beginRelease() {
    return state.compareAndSet(State.HELD, State.RELEASING);
  }

  /** Ends a release attempt: the hold ended, or it stays held (partial release or failure). */
  void endRelease(boolean ended) {
    state.compareAndSet(State.RELEASING, ended ? State.ENDED : State.HELD);
  }

  boolean releaseInDoubt() {
    return releaseInDoubt;
  }

  void releaseInDoubt(boolean inDoubt) {
    this.releaseInDoubt = inDoubt;
  }

  /**
   * Marks the hold lost unless it ended or is being released; completes {@link #lost()} on the
   * callback executor so that user stages never run on a Redis I/O thread. Returns whether it did.
   */
  boolean markLost(String reason, Executor callbacks) {
    if (!state.compareAndSet(State.HELD, State.LOST)) {
      return false;
    }
    lostReason = reason;
    callbacks.execute(() -> lost.complete(null));
    return true;
  }

  /** Marks the hold lost at release time (the release found it gone). */
  void lostAtRelease(String reason, Executor callbacks) {
    if (state.compareAndSet(State.RELEASING, State.LOST)) {
      lostReason = reason;
      callbacks.execute(() -> lost.complete(null));
    }
  }

  String lostReason() {
    return lostReason;
  }

  CompletableFuture<Void> lost() {
    return lost;
  }
}
