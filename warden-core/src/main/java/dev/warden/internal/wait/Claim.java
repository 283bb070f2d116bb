package dev.warden.internal.wait;

import dev.warden.internal.base.Subject;
import java.util.concurrent.CompletableFuture;

/**
 * What an {@link Acquisition} is taking: one atomic attempt, and how to give back a grant nobody
 * will use. Implemented by each primitive (lock, fair lock, semaphore, latch, condition, ...).
 *
 * @param <T> what a successful attempt grants
 */
public interface Claim<T> {
  /** Describes the object for messages: {@code lock 'orders'}. */
  String describe();

  /**
   * The object's type and name, for events and activity entries; null for acquisitions that are
   * part of another (a condition's signal), which are neither reported nor listed.
   */
  default Subject subject() {
    return null;
  }

  /**
   * Whether the acquisition reports its start and end to listeners: false when it is one step of a
   * larger acquisition that reports itself (a multi-lock's parts).
   */
  default boolean reported() {
    return true;
  }

  /** Names what the acquisition does, for messages: {@code acquire}, {@code await}. */
  default String verb() {
    return "acquire";
  }

  /** The channel on which a release of the object is published. */
  String channel();

  /**
   * Tries once. {@code othersWait}: other local acquirers wait on the channel, so a later release
   * must publish. The reply's grant is null when the object is not free.
   */
  CompletableFuture<Outcome<T>> attempt(boolean othersWait);

  /** Gives back a grant that arrived after the acquisition was abandoned. */
  CompletableFuture<?> rollback(T granted);

  /**
   * Gives back whatever this claim's attempts (or a hand-off to it) may have taken without anybody
   * knowing, or returns null if the claim has no such give-back (the default; it may clean up in
   * {@link #finished}). Sent, at most once per attempt, when an acquisition ends without a grant
   * after an attempt (or a hand-off) failed in a way that leaves open whether it ran (a timeout, a
   * dropped connection), or while one is still on its way. It goes out on the connection behind
   * those attempts, so Redis runs it after any of them that reached it: it must undo what one of
   * them did, change nothing if none ran, and never undo what anything else did (a later
   * acquisition of the same owner, whose calls may reach Redis before it).
   */
  default CompletableFuture<?> giveBackInDoubt() {
    return null;
  }

  /**
   * Leaves whatever queue an attempt may have joined, or returns null if the claim joins none (the
   * default). Sent once when the acquisition decides to end without a grant, before its result
   * completes: so Redis runs it after every attempt and before anything the caller does next (the
   * same owner's next acquisition keeps its place).
   */
  default CompletableFuture<?> leave() {
    return null;
  }

  /** Called once the acquisition is over, however it ended (e.g. to forget what it kept). */
  default void finished(boolean granted) {}

  /**
   * Whether the object is known to be held by another owner of this client, whose release will wake
   * this client's waiters (or hand the object to one): then the first attempt is skipped and the
   * acquisition parks at once. Wake-ups that come meanwhile are not lost: the topic's generation is
   * read before this is asked.
   */
  default boolean heldLocally() {
    return false;
  }

  /**
   * The id by which a release message may name this acquisition to wake it (alone, as the fair
   * lock's head, or first, as a semaphore's; see {@link WakeMessage}); null if releases never name
   * one.
   */
  default String waiterId() {
    return null;
  }

  /**
   * What a release by another owner of this client needs to hand the object straight to this claim
   * while it is parked, or null when it takes no hand-off (the default). Asked for every parked
   * waiter a release looks at, under the topic's lock: it must be cheap (made once).
   */
  default HandOffTerms handOffTerms() {
    return null;
  }

  /**
   * How a parked acquisition of this claim waits together with this client's other parked
   * acquisitions of the same object ({@link SharedWait}), or null (the default) when it waits alone
   * with its own re-check timer. Only for claims with {@link #handOffTerms()} (whose object names
   * the line), and only where a refusal of one stands for all of them.
   */
  default SharedWait sharing() {
    return null;
  }

  /** The claim's place in the object's queue now, or {@link Long#MAX_VALUE} when it has none. */
  default long ticket() {
    return Long.MAX_VALUE;
  }

  /**
   * The grant a hand-off made with this token (called only when {@link #handOffTerms()} is not
   * null).
   */
  default T handedOver(long token, long sentAtNanos) {
    throw new UnsupportedOperationException(describe() + ": " + verb() + " takes no hand-off");
  }

  /**
   * The id by which a direct grant names this claim's acquisition (the reentrant lock's
   * lock-release.lua, 'Grants'), or null when it takes no direct grant (the default). A claim that
   * takes them registers in Redis through its refused attempts, and implements {@link
   * #grantedDirectly} and {@link #giveBackGrant}.
   */
  default String grantId() {
    return null;
  }

  /**
   * Whether this claim can give back a direct grant nobody took ({@link #giveBackGrant}): one that
   * takes grants, or any other claim on a lock type that grants (it does not register, but its
   * client may still hear grants to registrations of its acquisitions that ended). False by
   * default.
   */
  default boolean givesBackGrants() {
    return grantId() != null;
  }

  /**
   * The grant a direct grant made with this token, its message having arrived at {@code
   * receivedAtNanos} (called only when {@link #grantId()} is not null).
   */
  default T grantedDirectly(long token, long receivedAtNanos) {
    throw new UnsupportedOperationException(describe() + ": " + verb() + " takes no direct grant");
  }

  /**
   * Gives back a direct grant to acquisition {@code acquisitionId} of {@code owner} under {@code
   * token} that no acquisition of this client took: it changes nothing unless Redis still has
   * exactly that grant (see the lock driver's {@code giveBackGrant}). Null when the claim takes no
   * direct grant (the default).
   */
  default CompletableFuture<?> giveBackGrant(String owner, String acquisitionId, long token) {
    return null;
  }

  /**
   * Whether this claim re-enters a hold its owner already has (it waits for nothing): re-entries go
   * on while a closing Warden lets holders finish ({@link Waiting#drain}). False by default.
   */
  default boolean reentry() {
    return false;
  }
}
