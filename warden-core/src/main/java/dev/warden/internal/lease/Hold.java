package dev.warden.internal.lease;

import dev.warden.WardenListener;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Subject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * What this client knows of one owner's hold on one lock: its token, its count, whether the lease
 * keeper renews it, and whether it is known to be lost.
 *
 * <p>The count is changed only by the owner (its thread, or the handle under its own lock); the
 * state is changed by the owner and by the lease keeper, with compare-and-set: the keeper cannot
 * mark a hold lost while its release is in flight, so a normal release never reports a lost lease.
 */
public final class Hold {
  /**
   * Ends a hold on its owner's behalf (a graceful close whose grace ran out): the lock layer's
   * owner-checked release, sent and not waited for.
   */
  @FunctionalInterface
  public interface Revocation {
    /**
     * Marks the hold lost for {@code reason} and sends the release, unless it is no longer plainly
     * held (released, being released, or lost); returns the release's outcome.
     */
    CompletableFuture<?> revoke(Hold hold, String reason);
  }

  /**
   * Ends in Redis a hold its client declared lost by its lease deadline, if Redis still has it
   * under its token (the lock layer's token-checked release, {@code LockDriver.dropLost}); returns
   * its outcome.
   */
  @FunctionalInterface
  public interface Drop {
    CompletableFuture<?> drop(Hold hold);
  }

  /** Where a hold is in its life. */
  public enum State {
    HELD,
    RELEASING,
    ENDED,
    LOST
  }

  private final String object;
  private final Subject subject;
  private final Events events;
  private final long startedNanos;
  private volatile long id; // given when its start is reported: no cost without listeners
  private volatile boolean observed; // its start went to the listeners: so does its end
  private final String owner;
  private final long token;
  private final long leaseMillis;
  private final Renewal renewal;
  private final Revocation revocation;
  private final Drop drop;
  private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private volatile int count;
  private volatile boolean renewed;
  private volatile long leaseDeadlineNanos;
  private volatile String lostReason;
  private volatile WardenListener.LossReason lossReason = WardenListener.LossReason.EXPIRED;
  private boolean limitTimed; // the lease keeper's: whether the end of its maximum hold is timed
  private volatile Throwable lostCause;
  private volatile boolean releaseInDoubt;
  private volatile String releaseId; // of the release under way, or that failed in doubt
  private volatile String acquisition; // set its count last, unless a release changed it since
  // lost by its lease deadline, and no drop of it has been answered yet (see dropLost)
  private volatile boolean dropNeeded;
  // what a renewal sends for this hold, encoded once when the lease keeper takes the hold
  private byte[][] renewalKeys;
  private byte[] renewalOwner;
  // where the lease keeper keeps it: its group (set once it is added, read without a lock) and,
  // guarded by that group, its batch and its place in it (null batch: not kept)
  volatile Object keeperGroup;
  Object keptIn;
  int keptAt;

  /**
   * @param object describes the lock, for messages
   * @param leaseMillis the lease it was taken with
   * @param leaseDeadlineNanos when Redis may expire it, on the client's monotonic clock
   * @param subject the lock's type and name, for events and activity entries
   * @param startedNanos when it began, on the client's monotonic clock
   * @param events where its start, end and loss are reported
   * @param revocation how it is ended on its owner's behalf (see {@link #revoke})
   * @param drop how it is ended in Redis once its client declared it lost by its lease deadline
   *     (see {@link #dropLost})
   */
  public Hold(
      String object,
      Subject subject,
      long startedNanos,
      Events events,
      String owner,
      long token,
      int count,
      long leaseMillis,
      long leaseDeadlineNanos,
      Renewal renewal,
      Revocation revocation,
      Drop drop) {
    this.object = object;
    this.subject = subject;
    this.startedNanos = startedNanos;
    this.events = events;
    this.owner = owner;
    this.token = token;
    this.count = count;
    this.leaseMillis = leaseMillis;
    this.leaseDeadlineNanos = leaseDeadlineNanos;
    this.renewal = renewal;
    this.revocation = revocation;
    this.drop = drop;
  }

  /**
   * Ends the hold on its owner's behalf, if it is plainly held: marks it lost for {@code reason}
   * (its owner is told as of a lost lease) and sends its owner-checked release.
   */
  public CompletableFuture<?> revoke(String reason) {
    return revocation.revoke(this, reason);
  }

  /**
   * Marks the hold lost because no renewal was answered before its lease deadline, as {@link
   * #markLost(String, Executor)} does, and sends its drop: renewals sent before the deadline may
   * reach Redis after it (their replies lost, or held in the network) and keep the hold for another
   * lease, held by nobody, so the client ends it there, by its token. Sent on the connection the
   * renewals went on, it arrives after them. Returns whether it marked the hold lost.
   */
  public boolean markLostByDeadline(String reason, Executor callbacks) {
    return markLostByDeadline(reason, WardenListener.LossReason.EXPIRED, callbacks);
  }

  /**
   * Marks the hold lost for a reason of a kind and sends its drop, as {@link
   * #markLostByDeadline(String, Executor)} does: also at its maximum hold time, past which a
   * re-entry's lease, or a renewal that reached Redis late, may keep it.
   */
  public boolean markLostByDeadline(
      String reason, WardenListener.LossReason kind, Executor callbacks) {
    if (state() != State.HELD) {
      return false; // lost already (a second renewal that failed after the deadline), or released
    }
    // marked needed before the hold is seen lost: an unlock that sees it lost (one the loss's
    // report or the lost() future set off, say) sends the drop too, and waits for it. Left set
    // when the hold was not marked lost here (a release began meanwhile): only a lost hold is
    // dropped (dropLost), and a drop of a hold lost otherwise changes nothing that is not its own
    dropNeeded = true;
    if (!markLost(reason, kind, callbacks)) {
      return false;
    }
    var unused = dropLost(); // the lock layer logs a failure; the owner's unlock sends it again
    return true;
  }

  /**
   * Sends the drop of a hold lost by its lease deadline (see {@link #markLostByDeadline}) unless
   * one was answered already; returns its outcome (null when none is needed). Its owner's {@code
   * unlock()} sends it again while none was answered (the first was lost in a partition, say).
   */
  public CompletableFuture<?> dropLost() {
    if (!dropNeeded || state() != State.LOST) {
      return null;
    }
    return drop.drop(this).thenRun(() -> dropNeeded = false);
  }

  /** Describes the lock, for messages. */
  public String object() {
    return object;
  }

  /** The lock's type and name. */
  public Subject subject() {
    return subject;
  }

  /** When the hold began, on the client's monotonic clock. */
  public long startedNanos() {
    return startedNanos;
  }

  /** Reports the hold's start to the listeners, if there are any now. */
  public void reportStarted() {
    if (events.on()) {
      id = Events.newHoldId();
      observed = true;
      events.holdStarted(subject.type(), subject.name(), id, token);
    }
  }

  /** Reports a renewal of the hold's lease by the lease keeper. */
  void reportRenewed() {
    if (events.on()) {
      events.leaseRenewed(subject.type(), subject.name());
    }
  }

  /** Reports the hold's end, if its start was reported. */
  public void reportEnded(long nowNanos) {
    if (observed) {
      observed = false;
      events.holdEnded(subject.type(), subject.name(), id, nowNanos - startedNanos);
    }
  }

  public String owner() {
    return owner;
  }

  /** The fencing token of this hold. */
  public long token() {
    return token;
  }

  /** The lease the hold was first taken with, in ms. */
  public long leaseMillis() {
    return leaseMillis;
  }

  /** How the lease keeper renews this hold. */
  public Renewal renewal() {
    return renewal;
  }

  public int count() {
    return count;
  }

  public void count(int count) {
    this.count = count;
  }

  /**
   * The id of the acquisition that set the hold's count last, as Redis records it ({@code #a}), or
   * null once a release changed the count since: what a give-back of that acquisition names.
   */
  public String acquisition() {
    return acquisition;
  }

  public void acquisition(String acquisitionId) {
    this.acquisition = acquisitionId;
  }

  /** Whether the lease keeper renews the hold. */
  public boolean renewed() {
    return renewed;
  }

  void renewed(boolean renewed) {
    this.renewed = renewed;
  }

  /** Returns the monotonic time after which Redis may have expired the hold. */
  public long leaseDeadlineNanos() {
    return leaseDeadlineNanos;
  }

  /** Whether this is an explicit (not renewed) lease that has run out as asked, at {@code now}. */
  public boolean explicitLeaseRanOut(long nowNanos) {
    return !renewed && nowNanos - leaseDeadlineNanos >= 0;
  }

  /** Moves the local lease deadline forward (never back) after a successful renewal. */
  public void extendLeaseDeadline(long deadlineNanos) {
    if (deadlineNanos - leaseDeadlineNanos > 0) {
      leaseDeadlineNanos = deadlineNanos;
    }
  }

  /** Sets the local lease deadline, earlier or later, after the lease was set to a new length. */
  public void resetLeaseDeadline(long deadlineNanos) {
    leaseDeadlineNanos = deadlineNanos;
  }

  /**
   * Encodes what a renewal sends for this hold; called by the lease keeper as it takes the hold.
   */
  void encodeRenewal() {
    List<String> keys = renewal.keys();
    byte[][] encoded = new byte[keys.size()][];
    for (int i = 0; i < encoded.length; i++) {
      encoded[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
    }
    renewalKeys = encoded;
    renewalOwner = owner.getBytes(StandardCharsets.UTF_8);
  }

  /** The keys of this hold's renewal, UTF-8 encoded. */
  byte[][] renewalKeys() {
    return renewalKeys;
  }

  /** The owner as this hold's renewal sends it, UTF-8 encoded. */
  byte[] renewalOwner() {
    return renewalOwner;
  }

  public State state() {
    return state.get();
  }

  /** Starts a release; false if the hold is not plainly held (lost, or being released). */
  public boolean beginRelease() {
    return state.compareAndSet(State.HELD, State.RELEASING);
  }

  /** Ends a release attempt: the hold ended, or it stays held (partial release or failure). */
  public void endRelease(boolean ended) {
    state.compareAndSet(State.RELEASING, ended ? State.ENDED : State.HELD);
  }

  /** Whether an earlier release attempt may have run (its outcome is unknown). */
  public boolean releaseInDoubt() {
    return releaseInDoubt;
  }

  public void releaseInDoubt(boolean inDoubt) {
    this.releaseInDoubt = inDoubt;
  }

  /**
   * The id of the owner's release of this hold: the one of a release that failed before its outcome
   * was known, so that calling the release again is the same release (its replay finds whether it
   * ended the hold), or a new one. Called by the owner.
   */
  public String releaseId(Supplier<String> newId) {
    String id = releaseId;
    if (id == null) {
      id = newId.get();
      releaseId = id;
    }
    return id;
  }

  /** The owner's release got its answer: the next release is a new one. */
  public void releaseDone() {
    releaseId = null;
    releaseInDoubt = false;
  }

  /**
   * Marks the hold lost unless it ended or is being released; completes {@link #lost()} on the
   * callback executor so that user stages never run on a Redis I/O thread. Returns whether it did.
   */
  public boolean markLost(String reason, Executor callbacks) {
    return markLost(reason, WardenListener.LossReason.EXPIRED, callbacks);
  }

  /**
   * Marks the hold lost for a reason of a kind, as {@link #markLost(String, Executor)} does; the
   * kind goes to the listeners.
   */
  public boolean markLost(String reason, WardenListener.LossReason kind, Executor callbacks) {
    if (!state.compareAndSet(State.HELD, State.LOST)) {
      return false;
    }
    lostReason = reason;
    lossReason = kind;
    reportLost(); // before the future, so that what it triggers sees the event counted
    callbacks.execute(() -> lost.complete(null));
    return true;
  }

  /** Marks the hold lost at release time (the release found it gone). */
  public void lostAtRelease(String reason, Executor callbacks) {
    if (state.compareAndSet(State.RELEASING, State.LOST)) {
      lostReason = reason;
      reportLost();
      callbacks.execute(() -> lost.complete(null));
    }
  }

  private void reportLost() {
    if (events.on()) {
      events.leaseLost(subject.type(), subject.name(), id, lossReason);
    }
  }

  /**
   * Marks a hold that ended lost after all, whatever its state: its lock was given up for a while
   * (a condition's await) and could not be taken back. Nothing is reported to listeners or to
   * {@link #lost()}: the failure is thrown to the owner, and {@code cause} goes with each later
   * report.
   */
  public void lostFor(String reason, Throwable cause) {
    lostReason = reason;
    lostCause = cause;
    state.set(State.LOST);
  }

  /**
   * Whether its maximum hold time ({@code maxHoldNanos} after it began; 0: none) is reached at
   * {@code nowNanos}, and ended it: its last renewals made its lease end at the limit, whatever a
   * renewal answered after it says. Unless its lease deadline came a renewal period ({@code
   * periodNanos}) or more before the limit: a tick on time would have found it passed, and lost the
   * hold by it, before the limit (a late tick or timer task finds that).
   */
  boolean endedByLimit(long maxHoldNanos, long periodNanos, long nowNanos) {
    long limit = startedNanos + maxHoldNanos;
    return maxHoldNanos > 0
        && nowNanos - limit >= 0
        && leaseDeadlineNanos - (limit - periodNanos) > 0;
  }

  /** Whether the lease keeper has timed the end of its maximum hold time; the keeper's alone. */
  boolean limitTimed() {
    return limitTimed;
  }

  void limitTimed(boolean timed) {
    this.limitTimed = timed;
  }

  /** Why the hold was lost, once it is. */
  public String lostReason() {
    return lostReason;
  }

  /** The failure that ended the hold, when one did (see {@link #lostFor}); else null. */
  public Throwable lostCause() {
    return lostCause;
  }

  /** Completes (on the callback executor) when the hold is found lost. */
  public CompletableFuture<Void> lost() {
    return lost;
  }

  @Override
  public String toString() {
    return "Hold[" + object + ", owner " + owner + ", token " + token + ", " + state() + "]";
  }
}
