package dev.warden.internal.wait;

import dev.warden.internal.redis.Failures;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link Acquisition} gives back: a grant nobody will use (through the claim's {@link
 * Claim#rollback}), and what its attempts may have taken without anybody knowing (through {@link
 * Claim#giveBackInDoubt()}). An attempt is in doubt when it failed after it may have run (a
 * timeout, a dropped connection: a silent partition's held bytes reach Redis later), or when it is
 * still on its way as the acquisition ends (the verdict came first). The give-back is sent when the
 * acquisition decides to end without a grant, before its result completes: on the connection behind
 * those attempts, so Redis runs it after any of them, and before the caller hears the outcome and
 * can try again. A grant that then arrives from an attempt it covers is not the caller's, and needs
 * no give-back of its own.
 *
 * <p>Thread-safety: its own monitor, taken after the acquisition's (never before), held only to
 * read and write these fields and to send the give-back, which does not block.
 */
final class GiveBacks<T> {
  private static final Logger log = LoggerFactory.getLogger(GiveBacks.class);

  /** The number of a grant that no attempt made: a hand-off, which no give-back covers. */
  static final long HANDED_OVER = -1;

  /** What becomes of a grant. */
  enum Grant {
    /** Hand it to the caller. */
    DELIVER,
    /** Give it back: the acquisition ended without it. */
    GIVE_BACK,
    /** Drop it: a give-back sent behind its attempt undoes it. */
    COVERED
  }

  private final Claim<T> claim;
  private final CompletableFuture<T> result;
  private long attemptsSent; // attempts are numbered from 1 as they are sent
  private int unanswered; // attempts sent whose reply or failure has not come back
  private boolean inDoubt; // an attempt failed in a way that leaves open whether it ran
  private long coveredUpTo; // a give-back sent after attempt number coveredUpTo undoes them all
  private boolean delivering; // a grant is being handed to the caller: nothing is given back
  private boolean ending; // the acquisition is ending without a grant

  GiveBacks(Claim<T> claim, CompletableFuture<T> result) {
    this.claim = claim;
    this.result = result;
  }

  /** Records an attempt just sent; returns its number. */
  synchronized long sent() {
    unanswered++;
    return ++attemptsSent;
  }

  /**
   * Records the reply ({@code failure} null) or failure of attempt {@code number}. One that failed
   * in doubt after the acquisition ended, not covered by the give-back sent then (it was sent just
   * as the acquisition ended), needs its own.
   */
  synchronized void answered(long number, Throwable failure) {
    unanswered--;
    if (failure != null && Failures.isTransient(failure)) {
      inDoubt = true;
      if (ending && number > coveredUpTo) {
        giveBack(number);
      }
    }
  }

  /** Decides what becomes of the grant of attempt {@code number}, or of a hand-off. */
  synchronized Grant granted(long number) {
    if (number != HANDED_OVER && number <= coveredUpTo) {
      return Grant.COVERED;
    }
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
    if ((inDoubt || unanswered > 0) && coveredUpTo < attemptsSent) {
      giveBack(attemptsSent);
    }
    return true;
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
