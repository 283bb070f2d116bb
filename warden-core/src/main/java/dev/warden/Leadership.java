package dev.warden;

import java.util.OptionalLong;

/**
 * Leader election among the instances of an application: each one campaigns for the leadership of a
 * name, at most one holds it at a time, and the holder is told when it is elected and when it is no
 * longer the leader. Made by {@link Warden#leadership(String)}; register the callbacks, then {@link
 * #start()}.
 *
 * <pre>{@code
 * Leadership leadership =
 *     warden
 *         .leadership("billing-scheduler")
 *         .onElected(term -> scheduler.start(term))          // term: this leadership's fencing token
 *         .onRevoked((term, reason) -> scheduler.stop());    // lease lost, or stopped
 * leadership.start();
 * ...
 * leadership.close();   // revoked(STOPPED) runs, then the lock is released: another instance leads
 * }</pre>
 *
 * <p><b>How.</b> The leadership of {@code name} is the hold of {@link Warden#lock(String)
 * warden.lock(name)} by a {@link LockHandle}: a candidate waits for the lock without blocking a
 * thread, the leader's lease is renewed by the lease keeper, and a lease that is lost ({@link
 * LockHandle#leaseLost()}) ends the leadership at once; the candidate then campaigns again. The
 * lock can be inspected like any other ({@code warden inspect <name>}).
 *
 * <p><b>Terms.</b> Each leadership's term is the fencing token of its hold: strictly greater than
 * every earlier term of the name, by any instance. A deposed leader may not know it yet (a paused
 * process is told only when it runs again, and its work may already be in flight), so work that
 * must never be done by two leaders is guarded by the term where it lands: the store refuses a
 * write whose term is below the highest it has seen (docs/fencing.md).
 *
 * <p><b>Callbacks</b> run on Warden's callback executor, one at a time and in order, for each
 * leadership: {@code elected(t)}, then {@code revoked(t, reason)}, then perhaps {@code elected(t2)}
 * with {@code t2 > t}, and so on. {@link #isLeader()} and {@link #term()} change before the
 * callback is called: they are false and empty as soon as the lease is known lost. What a callback
 * throws is logged and otherwise ignored.
 *
 * <p><b>Failures.</b> The leader is told {@link Reason#LEASE_LOST} when its lease is known lost: it
 * could not be renewed (Redis unreachable, or this process paused) until the lease's deadline,
 * another owner took the lock, it was force-unlocked, or it was lost with Redis data in a failover.
 * While Redis cannot be reached, a candidate tries again every second. {@link #close()} ends the
 * leadership ({@link Reason#STOPPED}) and releases the lock; {@link Warden#close()} ends it too
 * ({@link Reason#STOPPED}) but leaves the lock to expire, as every hold.
 *
 * <p>Thread-safe. A campaign costs no thread: one waiting acquisition, woken by the lock's release
 * messages.
 *
 * @since 0.2
 */
public interface Leadership extends AutoCloseable {
  /** Why a leadership ended. */
  enum Reason {
    /**
     * The hold's lease was lost: not renewed in time (Redis unreachable, this process paused),
     * taken by another owner after it expired, force-unlocked, or lost in a failover. Another
     * instance may already lead.
     */
    LEASE_LOST,
    /**
     * This leadership was {@linkplain #close() closed} (the lock is released once the callback
     * returned), or its Warden was closed (the lock is left to expire).
     */
    STOPPED
  }

  /** Called when this instance becomes the leader. */
  @FunctionalInterface
  interface Elected {
    /**
     * This instance leads now, for the term given.
     *
     * @param term the leadership's term: its fencing token, above every earlier term
     */
    void elected(long term);
  }

  /** Called when this instance is no longer the leader. */
  @FunctionalInterface
  interface Revoked {
    /**
     * This instance no longer leads.
     *
     * @param term the term that ended
     * @param reason why it ended
     */
    void revoked(long term, Reason reason);
  }

  /**
   * Returns the name whose leadership this is: the name of the lock that it holds.
   *
   * @return the name
   */
  String name();

  /**
   * Registers a callback for each election of this instance. Before {@link #start()} only.
   *
   * @param elected the callback
   * @return this leadership
   * @throws IllegalArgumentException if {@code elected} is null
   * @throws IllegalStateException if this leadership was started
   */
  Leadership onElected(Elected elected);

  /**
   * Registers a callback for each end of this instance's leadership. Before {@link #start()} only.
   *
   * @param revoked the callback
   * @return this leadership
   * @throws IllegalArgumentException if {@code revoked} is null
   * @throws IllegalStateException if this leadership was started
   */
  Leadership onRevoked(Revoked revoked);

  /**
   * Starts campaigning: waits for the lock without blocking a thread, and leads while it holds it.
   * Returns at once.
   *
   * @return this leadership
   * @throws IllegalStateException if it was started before, or closed
   */
  Leadership start();

  /**
   * Returns whether this instance leads now, as far as it knows (no round trip): true from the
   * election until the lease is known lost or the leadership stops.
   *
   * @return whether this instance leads
   */
  boolean isLeader();

  /**
   * Returns the term of the leadership this instance holds now, or empty when it does not lead.
   *
   * @return the current term, or empty
   */
  OptionalLong term();

  /**
   * Stops campaigning and ends the leadership if this instance leads: {@code revoked(term,
   * STOPPED)} runs, then the lock is released, so that another instance may lead at once (and never
   * before this one's callback returned). Waits for both, the release for at most the command
   * timeout; called from one of this leadership's callbacks, it returns at once and they follow.
   * Idempotent.
   *
   * @throws WardenException if the release failed; the lock then expires with its lease
   */
  @Override
  void close();
}
