package dev.warden.internal.lock;

import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.lock.driver.RefusalHint;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.Claim;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.Outcome;
import dev.warden.internal.wait.SharedWait;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner's claim on one lock, for {@link Acquisition}: the attempt through the lock's driver,
 * the give-back of a grant nobody will use, and the two shortcuts of the local client: waiting
 * without asking Redis while another owner of this client holds the lock, and taking the lock
 * straight from that owner's release (a hand-off) while parked. Its attempts carry what its
 * refusals taught it ({@link RefusalHint}), which makes an attempt after a refusal cheaper.
 */
final class MutexClaim implements Claim<Granted> {
  private static final Logger log = LoggerFactory.getLogger(MutexClaim.class);
  private final LockCore core;
  private final LockDriver driver;
  private final String owner;
  private final int heldBefore;
  private final long leaseMillis;
  private final boolean willWait;
  private final String id;
  private final RefusalHint hint;
  // made when a release first looks at this claim parked; racy but idempotent (a record)
  private HandOffTerms handOffTerms;
  // whether the leave was sent; leave() is called by the acquisition's ending, at most once, and
  // by finished(), which comes after it on the same acquisition: no two threads at once
  private volatile boolean left;

  private final boolean reported;
  private final boolean grantable;

  MutexClaim(
      LockCore core,
      String owner,
      int heldBefore,
      long leaseMillis,
      boolean willWait,
      boolean reported) {
    this(core, owner, heldBefore, leaseMillis, willWait, reported, false);
  }

  /**
   * @param grantable whether the acquisition takes a direct grant: a first acquisition that waits,
   *     with a lease the lease keeper renews (its confirmation is a renewal), of a lock type that
   *     grants (the reentrant and the fair lock; the others ignore the registration)
   */
  MutexClaim(
      LockCore core,
      String owner,
      int heldBefore,
      long leaseMillis,
      boolean willWait,
      boolean reported,
      boolean grantable) {
    this.core = core;
    this.grantable = grantable && heldBefore == 0 && willWait && core.driver().grantsDirectly();
    this.reported = reported;
    this.driver = core.driver();
    this.id = core.newAcquisitionId();
    this.owner = owner;
    this.heldBefore = heldBefore;
    this.leaseMillis = leaseMillis;
    this.willWait = willWait;
    this.hint = new RefusalHint(core.context().clock());
  }

  @Override
  public String describe() {
    return driver.describe();
  }

  @Override
  public Subject subject() {
    return driver.subject();
  }

  @Override
  public boolean reported() {
    return reported;
  }

  @Override
  public String channel() {
    return driver.channel();
  }

  @Override
  public CompletableFuture<Outcome<Granted>> attempt(boolean othersWait) {
    long sentAt = core.now();
    return driver
        .acquire(owner, id, heldBefore, leaseMillis, othersWait, willWait, hint, grantable)
        .thenApply(
            reply ->
                reply.acquired()
                    // the script set the owner's count to this: the client's count
                    ? Outcome.granted(new Granted(reply.token(), heldBefore + 1, id, sentAt))
                    : Outcome.busy(reply.retryAfterMillis()));
  }

  @Override
  public CompletableFuture<?> rollback(Granted granted) {
    return core.giveBack(owner, granted);
  }

  /**
   * Gives back what this acquisition's attempts (or a hand-off to it) may have taken: the owner's
   * hold goes back to {@code heldBefore} if it is still the one this acquisition set, and is left
   * alone otherwise (no attempt ran, or a later acquisition of the owner has taken it since).
   */
  @Override
  public CompletableFuture<?> giveBackInDoubt() {
    return core.giveBackInDoubt(owner, id, heldBefore);
  }

  /**
   * Leaves the queue a waiting attempt may have joined (a fair lock's, a write lock's waiting
   * writers), before the caller hears that the acquisition ended: so the same owner's next
   * acquisition reaches Redis after it, and keeps its own place.
   */
  @Override
  public CompletableFuture<?> leave() {
    if (!willWait || left) {
      return null;
    }
    left = true;
    return driver.leave(owner, id);
  }

  @Override
  public String waiterId() {
    return driver.waiterId(owner);
  }

  /**
   * Whether another owner of this client holds the lock now (for drivers whose local holder's
   * release always hands over or wakes): then an attempt would be refused, and the acquisition can
   * wait without asking Redis.
   */
  @Override
  public boolean heldLocally() {
    if (heldBefore != 0 || !willWait || !driver.waitsForLocalHolder()) {
      return false;
    }
    String holder = core.localHolder();
    if (holder == null || holder.equals(owner)) {
      return false;
    }
    Hold hold = core.hold(holder);
    if (hold == null) {
      return true; // handed over, not yet adopted by its thread
    }
    // a lost hold, or an explicit lease that ran out, holds nothing in Redis; nor may a hold whose
    // release failed in doubt (it may have run, and nothing else would wake us)
    return hold.state() != Hold.State.LOST
        && !hold.releaseInDoubt()
        && !hold.explicitLeaseRanOut(core.now());
  }

  /** A first acquisition that waits can be handed the lock; a re-entry or a try cannot. */
  @Override
  public HandOffTerms handOffTerms() {
    if (heldBefore != 0 || !willWait) {
      return null;
    }
    HandOffTerms terms = handOffTerms;
    if (terms == null) {
      terms = new HandOffTerms(driver.holdKey(), owner, leaseMillis, id);
      handOffTerms = terms;
    }
    return terms;
  }

  @Override
  public long ticket() {
    return driver.ticket(id);
  }

  /** A first acquisition that waits shares its waiting where the lock type lets it. */
  @Override
  public SharedWait sharing() {
    return heldBefore != 0 || !willWait ? null : driver.sharedWait();
  }

  @Override
  public Granted handedOver(long token, long sentAtNanos) {
    return new Granted(token, 1, id, sentAtNanos);
  }

  @Override
  public String grantId() {
    return grantable ? id : null;
  }

  /** Any claim on a lock type that grants: its client may hear grants it must give back. */
  @Override
  public boolean givesBackGrants() {
    return driver.grantsDirectly();
  }

  /** A direct grant holds the lock once, for this acquisition, until its renewal confirms it. */
  @Override
  public Granted grantedDirectly(long token, long receivedAtNanos) {
    return new Granted(token, 1, id, receivedAtNanos, true);
  }

  @Override
  public CompletableFuture<?> giveBackGrant(String owner, String acquisitionId, long token) {
    return giveBackGrant(core, owner, acquisitionId, token);
  }

  /**
   * Gives back a direct grant of {@code core}'s lock that nobody took ({@link
   * Claim#giveBackGrant}); a give-back that ends the hold wakes a local waiter, as a release would.
   */
  static CompletableFuture<?> giveBackGrant(
      LockCore core, String owner, String acquisitionId, long token) {
    return core.driver()
        .giveBackGrant(owner, acquisitionId, token)
        .whenComplete(
            (released, failure) -> {
              if (failure == null && released.held() && released.remaining() == 0) {
                core.wakeLocal(released.wake()); // it ended the hold: as a release would
              } else if (failure != null) {
                log.warn(
                    "{}: could not give back a direct grant nobody took; it ends with its grant"
                        + " lease: {}",
                    core.driver().describe(),
                    Failures.unwrap(failure).toString());
              }
            });
  }

  @Override
  public void finished(boolean granted) {
    if (!granted) {
      // ended without leaving first (the client closed, or an attempt could not be sent): a
      // queue the waiter joined must not keep it
      var unused = leave();
    }
    driver.forget(id);
  }

  @Override
  public boolean reentry() {
    return heldBefore > 0;
  }
}
