package dev.warden.internal.lock.driver;

import dev.warden.internal.base.Clock;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Outcome;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What one acquisition knows from the refusals it heard, so that its next attempt costs Redis less
 * (lock-acquire.lua's ARGV[9] and ARGV[10], and its "Hints"): that it was refused before (the
 * attempt skips the EXISTS that only a free lock's first taker gains from), and the token of the
 * holder whose remaining lease the last refusal read, with the time its lease ends by the client's
 * clock. Until then, a refusal by the same holder does not read its lease again: the script answers
 * that the expiry the client knows stands. The hint decides only which commands the script runs,
 * never what it writes.
 *
 * <p>The end of the lease is counted from when the refused attempt was sent, so it comes no later
 * than the hash's own expiry (which a renewal only moves later: a lease set shorter, by {@code
 * extend}, {@code closeAfter} or a renewal after a longer re-entry, marks the hash so that the hint
 * is ignored; a Sentinel failover makes it forget the holder, see {@link #sentUnder}; see the
 * script's "Hints" for the exceptions left, a restart from an older file and a failover on one
 * server's or a cluster's terms, which only make a check later, by at most the line's interval).
 *
 * <p>Thread-safety: an acquisition's attempts run one at a time, but their replies complete on
 * Lettuce's event loop and the next attempt may be sent from another thread; the methods are
 * synchronized.
 */
public final class RefusalHint {
  /** The script's refusal reply that says "the expiry you know stands". */
  static final long EXPIRY_KNOWN = -2;

  private final Clock clock;
  private boolean refused; // guarded by this
  private String holder; // guarded by this; '#t' of the holder whose lease was read, or null
  private long expiresAtNanos; // guarded by this; valid while holder != null
  private String terms; // guarded by this; the fence terms the attempts were last sent under

  /** A hint that knows nothing yet: the first attempt sends none. */
  public RefusalHint(Clock clock) {
    this.clock = clock;
  }

  /**
   * Before an attempt: the fence terms it is sent under ({@code Scripts.fenceTerms()}). When their
   * epoch changed (a Sentinel failover), the holder learnt before is forgotten: the new master may
   * hold it with an older, earlier expiry (a replica that missed its last renewal), so its lease is
   * read again.
   */
  synchronized void sentUnder(String fenceTerms) {
    if (!fenceTerms.equals(terms)) {
      if (terms != null) {
        holder = null;
      }
      terms = fenceTerms;
    }
  }

  /** ARGV[9]: '1' once an attempt was refused. */
  synchronized String refusedArgument() {
    return refused ? "1" : "0";
  }

  /** ARGV[10]: the holder whose lease the client knows has not ended yet, or ''. */
  synchronized String holderArgument() {
    return holder != null && clock.nanoTime() - expiresAtNanos < 0 ? holder : "";
  }

  /** The client's clock, for when an attempt is sent. */
  long now() {
    return clock.nanoTime();
  }

  /**
   * Learns from a refusal, lock-acquire.lua's {0, pttl, token}, {0, pttl} or {0, -2}, of an attempt
   * sent at {@code sentAtNanos}; returns how long to wait before asking again (ms; 0 or less when
   * unknown, see {@link Outcome#untilExpiry}).
   */
  synchronized long refusedBy(List<Object> reply, long sentAtNanos) {
    refused = true;
    long pttl = Scripts.number(reply, 1);
    if (pttl == EXPIRY_KNOWN) {
      if (holder == null) {
        return -1; // not asked for (a reply to an older call): the recheck interval decides
      }
      // 1 ms at least: an expiry reached meanwhile is read at once next time
      return Math.max(1, TimeUnit.NANOSECONDS.toMillis(expiresAtNanos - clock.nanoTime()));
    }
    if (reply.size() > 2 && pttl >= 0) {
      holder = String.valueOf(reply.get(2));
      expiresAtNanos = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(pttl);
    } else {
      holder = null; // a turn, a reservation, or a holder with no lease: read again next time
    }
    return Outcome.untilExpiry(pttl);
  }
}
