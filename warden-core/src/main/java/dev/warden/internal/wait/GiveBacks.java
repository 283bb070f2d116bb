package dev.warden.internal.wait;

import dev.warden.internal.redis.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link Acquisition} sends and gives back: its attempts, a grant nobody will use (through
 * the claim's {@link Claim#rollback}), what its attempts may have taken without anybody knowing
 * (through {@link Claim#giveBackInDoubt()}), and its leaving of a queue ({@link Claim#leave()}). An
 * attempt is in doubt when it failed after it may have run (a timeout, a dropped connection: a
 * silent partition's held bytes reach Redis later), or when it is still on its way as the
 * acquisition ends (the verdict came first); so is a hand-off to it whose reply was lost. The
 * give-back and the leave are sent when the acquisition decides to end without a grant, before its
 * result completes: on the connection behind those attempts, so Redis runs them after any of them,
 * and before the caller hears the outcome and can try again. No attempt is sent once that decision
 * is made (sending and deciding take this monitor). One attempt sent before may still run after
 * them all the same: its EVALSHA answered NOSCRIPT (the server's script cache was emptied by a
 * restart, a failover or SCRIPT FLUSH) is sent again as EVAL when that answer comes back, which can
 * be after the give-back, whose own script was loaded. So whatever an attempt brings back after the
 * decision gets a give-back of its own: a grant is rolled back, a failure that leaves open whether
 * it ran is given back once more. Give-backs name the acquisition they undo, so one that finds
 * nothing more to undo changes nothing.
 *
 * <p>Thread-safety: its own monitor, taken after the acquisition's (never before), held only to
 * read and write these fields and to send the attempts, the give-back and the leave, none of which
 * blocks.
 */
final class GiveBacks<T> {
  private static final Logger log = LoggerFactory.getLogger(GiveBacks.class);

  /** What becomes of a grant. */
  enum Grant {
    /** Hand it to the caller. */
    DELIVER,
    /** Give it back: the acquisition ended without it. */
    GIVE_BACK
  }

  private final Claim<T> claim;
  private final CompletableFuture<T> result;
  private long attemptsSent; // attempts are numbered from 1 as they are sent
  private int unanswered; // attempts sent whose reply or failure has not come back
  private boolean inDoubt; // an attempt failed in a way that leaves open whether it ran
  private long coveredUpTo; // a give-back sent after attempt number coveredUpTo undoes them all
  private boolean delivering; // a grant is being handed to the caller: nothing is given back
  private boolean ending; // the acquisition is ending without a grant
  private boolean handOffInDoubt; // a hand-off to it may have run unseen, and is not covered yet
  private boolean left; // the leave was sent

  /** An attempt sent: its number (from 1) and its reply. */
  record Sent<T>(long number, CompletableFuture<Outcome<T>> reply) {}

  GiveBacks(Claim<T> claim, CompletableFuture<T> result) {
    this.claim = claim;
    this.result = result;
  }

  /**
   * Sends an attempt ({@code attempt} sends it and returns its reply) and records it, unless the
   * acquisition is ending or over: then returns null and sends nothing.
   */
  synchronized Sent<T> send(Supplier<CompletableFuture<Outcome<T>>> attempt) {
    if (ending || result.isDone()) {
      return null;
    }
    CompletableFuture<Outcome<T>> reply = attempt.get();
    unanswered++;
    return new Sent<>(++attemptsSent, reply);
  }

  /**
   * Records the reply ({@code failure} null) or failure of attempt {@code number}. One that failed
   * in doubt after the acquisition ended needs a give-back of its own: the one sent then may have
   * reached Redis before it (sent again as EVAL after NOSCRIPT), or none was sent (it failed just
   * as the acquisition ended).
   */
  synchronized void answered(long number, Throwable failure) {
    unanswered--;
    if (failure != null && Failures.isTransient(failure)) {
      inDoubt = true;
      if (ending) {
        giveBack(number);
      }
    }
  }

  /**
   * Decides what becomes of a grant (of an attempt, or of a hand-off): given back once the
   * acquisition is ending, also when a give-back was sent behind its attempt (the attempt may have
   * run after it: see the class comment).
   */
  synchronized Grant granted() {
    if (ending) {
      return Grant.GIVE_BACK;
    }
    delivering = true;
    return Grant.DELIVER;
  }

  /**
   * Decides that the acquisition ends without a grant, unless a grant is on its way to the caller
   * or it is over already; returns whether the caller should now complete it so. Sends the
   * give-back first if an attempt is in doubt.
   */
  synchronized boolean beginEnding() {
    if (delivering || result.isDone()) {
      return false;
    }
    ending = true;
    if (((inDoubt || unanswered > 0) && coveredUpTo < attemptsSent) || handOffInDoubt) {
      giveBack(attemptsSent);
    }
    if (!left) {
      left = true;
      leave();
    }
    return true;
  }

  /**
   * Records that a hand-off to this acquisition may have run unseen; returns whether the
   * acquisition goes on (it then tries again, and finds what it was given). If it is ending or
   * over, the give-back goes out now, behind the hand-off.
   */
  synchronized boolean handOffInDoubt() {
    if (ending || result.isDone()) {
      giveBack(attemptsSent);
      return false;
    }
    handOffInDoubt = true;
    return true;
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void leave() {
    CompletableFuture<?> sent = claim.leave();
    if (sent != null) {
      sent.whenComplete(
          (unused, failure) -> {
            if (failure != null) {
              log.warn(
                  "{}: could not leave the queue; the entry lapses with its heartbeat: {}",
                  claim.describe(),
                  Failures.unwrap(failure).toString());
            }
          });
    }
  }

  /**
   * Abandons the acquisition (the caller was interrupted or gave up): afterwards nothing is held. A
   * grant that had already been made is given back; one arriving later is given back by {@link
   * #granted}.
   */
  void abandon() {
    beginEnding();
    if (result.cancel(false) || result.isCompletedExceptionally()) {
      return;
    }
    T granted = result.getNow(null);
    if (granted != null) {
      unused(granted);
    }
  }

  /** Gives back a grant that arrived when nobody would use it any more. */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  void unused(T granted) {
    claim
        .rollback(granted)
        .whenComplete(
            (released, failure) -> {
              if (failure != null) {
                log.warn(
                    "{}: could not give back an abandoned acquisition; it expires with its lease:"
                        + " {}",
                    claim.describe(),
                    Failures.unwrap(failure).toString());
              }
            });
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void giveBack(long upTo) {
    CompletableFuture<?> sent = claim.giveBackInDoubt();
    if (sent == null) {
      return; // the claim cleans up in finished() instead
    }
    coveredUpTo = upTo;
    handOffInDoubt = false;
    sent.whenComplete(
        (released, failure) -> {
          if (failure != null) {
            log.warn(
                "{}: could not give back what a failed attempt may have taken; it expires with"
                    + " its lease: {}",
                claim.describe(),
                Failures.unwrap(failure).toString());
          }
        });
  }
}
