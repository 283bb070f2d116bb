package dev.warden;

/**
 * Hears what the objects of one {@link Warden} do, for metrics and tracing: acquisitions, holds,
 * lease renewals and lost leases. Register one with {@link Warden#addListener(WardenListener)} (or
 * {@link Warden.Builder#listener(WardenListener)}); every method has an empty default.
 *
 * <p><b>Threads.</b> Methods are called on the thread where the event happens: the caller's, a
 * Lettuce event-loop thread (an acquisition granted by a script reply), the lease keeper's or the
 * timer's. They must be quick and must not block or call Redis; what they throw is logged and
 * otherwise ignored. Events of one hold come in order (started before ended); events of different
 * objects may interleave.
 *
 * <p><b>Cost.</b> With no listener registered nothing is measured; each registered listener adds a
 * clock read and a call per event.
 *
 * <p><b>Names.</b> {@code name} is the object's name as the user gave it; it can be unbounded
 * ({@code invoice-42}), so keep it out of metric tags unless the set of names is known.
 *
 * @since 0.2
 */
public interface WardenListener {
  /** How an acquisition ended. */
  enum Outcome {
    /** It was granted. */
    ACQUIRED,
    /** Its wait ran out without a grant. */
    TIMED_OUT,
    /** It failed: Redis unreachable or failing, or the Warden closed. */
    FAILED,
    /** Its caller gave up: interrupted, or the future of an asynchronous call cancelled. */
    CANCELLED;

    private final String tag = name().toLowerCase(java.util.Locale.ROOT);

    /**
     * Returns the outcome's name in lower case ({@code timed_out}), a stable value for metric tags.
     *
     * @return the lower-case name
     */
    public String tag() {
      return tag;
    }
  }

  /**
   * Why a hold was lost (see {@link #leaseLost(ObjectType, String, long, LossReason)}).
   *
   * @since 0.2
   */
  enum LossReason {
    /**
     * Its lease ran out without a renewal (a partition, a pause), it was force-unlocked, or Redis
     * lost it (a failover, a restart).
     */
    EXPIRED,
    /**
     * It was held for its maximum hold time ({@link Warden.Builder#maxHoldTime}): the lease keeper
     * stopped renewing it and it expired then.
     */
    MAX_HOLD_TIME,
    /**
     * Its {@code Warden} was closed gracefully ({@link Warden#close(java.time.Duration)}) while it
     * was held: released once the grace period ran out.
     */
    SHUTDOWN;

    private final String tag = name().toLowerCase(java.util.Locale.ROOT);

    /**
     * Returns the reason's name in lower case ({@code max_hold_time}), a stable value for metric
     * tags.
     *
     * @return the lower-case name
     */
    public String tag() {
      return tag;
    }
  }

  /**
   * An acquisition began: a caller now waits (or is about to be granted at once). Re-entries of a
   * held lock and calls that never wait for anything (such as {@code tryLock()} of a semaphore that
   * is not free) count too.
   *
   * @param type the object's type
   * @param name the object's name
   */
  default void acquisitionStarted(ObjectType type, String name) {}

  /**
   * An acquisition that {@link #acquisitionStarted started} ended. It is heard on the thread that
   * completed it, which may be a moment after the caller's call has returned.
   *
   * @param type the object's type
   * @param name the object's name
   * @param outcome how it ended
   * @param nanos how long it took, from the call to the outcome
   */
  default void acquisitionEnded(ObjectType type, String name, Outcome outcome, long nanos) {}

  /**
   * An acquisition began, with an id that its end names again: for tracing, where the start and the
   * end of one acquisition must be paired (they may happen on different threads, and acquisitions
   * of one name overlap). The default calls {@link #acquisitionStarted(ObjectType, String)}; Warden
   * calls only this form.
   *
   * @param type the object's type
   * @param name the object's name
   * @param acquisitionId the acquisition's id, unique within this JVM
   * @since 0.2
   */
  default void acquisitionStarted(ObjectType type, String name, long acquisitionId) {
    acquisitionStarted(type, name);
  }

  /**
   * An acquisition that {@link #acquisitionStarted(ObjectType, String, long) started} ended. The
   * default calls {@link #acquisitionEnded(ObjectType, String, Outcome, long)}; Warden calls only
   * this form.
   *
   * @param type the object's type
   * @param name the object's name
   * @param acquisitionId the id its start gave
   * @param outcome how it ended
   * @param nanos how long it took, from the call to the outcome
   * @since 0.2
   */
  default void acquisitionEnded(
      ObjectType type, String name, long acquisitionId, Outcome outcome, long nanos) {
    acquisitionEnded(type, name, outcome, nanos);
  }

  /**
   * A new hold of a lock began (a re-entry of a held lock is not a new hold). Semaphores and
   * latches have no holds.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param holdId the hold's id, unique within this JVM; {@link #holdEnded} names it again
   */
  default void holdStarted(ObjectType type, String name, long holdId) {}

  /**
   * A new hold of a lock began, with its fencing token. The default calls {@link
   * #holdStarted(ObjectType, String, long)}; Warden calls only this form.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param holdId the hold's id, unique within this JVM
   * @param fencingToken the hold's fencing token
   * @since 0.2
   */
  default void holdStarted(ObjectType type, String name, long holdId, long fencingToken) {
    holdStarted(type, name, holdId);
  }

  /**
   * A hold that {@link #holdStarted started} ended: released, given back, or (once its owner was
   * told) lost.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param holdId the id {@link #holdStarted} gave
   * @param nanos how long it was held
   */
  default void holdEnded(ObjectType type, String name, long holdId, long nanos) {}

  /**
   * The lease keeper renewed the lease of a hold.
   *
   * @param type the lock's type
   * @param name the lock's name
   */
  default void leaseRenewed(ObjectType type, String name) {}

  /**
   * A hold's lease was found lost (expired, force-unlocked, or lost with Redis data in a failover),
   * at the moment its {@link LockHandle#leaseLost()} completes.
   *
   * @param type the lock's type
   * @param name the lock's name
   */
  default void leaseLost(ObjectType type, String name) {}

  /**
   * A hold's lease was found lost, naming the hold ({@link #holdStarted(ObjectType, String, long)}
   * gave the id; 0 when the hold's start was not reported, e.g. no listener was registered then).
   * The default calls {@link #leaseLost(ObjectType, String)}.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param holdId the hold's id, or 0
   * @since 0.2
   */
  default void leaseLost(ObjectType type, String name, long holdId) {
    leaseLost(type, name);
  }

  /**
   * A hold's lease was found lost, naming the hold (as {@link #leaseLost(ObjectType, String,
   * long)}) and why, at the moment its {@link LockHandle#leaseLost()} completes. The default calls
   * {@link #leaseLost(ObjectType, String, long)}; Warden calls only this form.
   *
   * @param type the lock's type
   * @param name the lock's name
   * @param holdId the hold's id, or 0
   * @param reason why it was lost
   * @since 0.2
   */
  default void leaseLost(ObjectType type, String name, long holdId, LossReason reason) {
    leaseLost(type, name, holdId);
  }
}
