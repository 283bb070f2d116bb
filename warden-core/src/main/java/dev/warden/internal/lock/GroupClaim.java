package dev.warden.internal.lock;

import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lock.driver.LockKeys;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Claim;
import dev.warden.internal.wait.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several locks of one slot whose drivers join groups (reentrant locks), taken by one script call
 * (lock-acquire-all.lua) for one owner: all or none. A refusal names the part that refused, and the
 * acquisition waits on that part's channel; when it also says that an earlier attempt (whose reply
 * was lost) took parts, they are given back at once, by the id those attempts ran under, so that
 * the owner holds none of the group while it waits; the later attempts run under a new id, which
 * that give-back cannot undo, whenever it runs.
 */
final class GroupClaim implements Claim<List<Granted>> {
  private static final Logger log = LoggerFactory.getLogger(GroupClaim.class);

  private final Subject subject;
  private final List<LockCore> group;
  private final String owner;
  private final List<Hold> before;
  private final long leaseMillis;

  /**
   * The id the next attempt runs under: a new one after a refusal whose give-back names the old one
   * (see {@link #attempt}). Written by the reply of one attempt, read by the next.
   */
  private volatile String id;

  GroupClaim(
      Subject subject, List<LockCore> group, String owner, List<Hold> before, long leaseMillis) {
    this.subject = subject;
    this.group = group;
    this.owner = owner;
    this.before = before;
    this.leaseMillis = leaseMillis;
    this.id = group.get(0).newAcquisitionId();
  }

  @Override
  public String describe() {
    return subject.name();
  }

  @Override
  public Subject subject() {
    return subject;
  }

  @Override
  public boolean reported() {
    return false; // the multi-lock reports its whole acquisition
  }

  @Override
  public String channel() {
    return group.get(0).driver().channel();
  }

  @Override
  public CompletableFuture<Outcome<List<Granted>>> attempt(boolean othersWait) {
    LockContext context = group.get(0).context();
    String[] keys = new String[group.size() * 2];
    String[] args = new String[4 + group.size()];
    args[0] = owner;
    args[1] = Long.toString(leaseMillis);
    args[2] = context.scripts().fenceTerms();
    String attemptId = id;
    args[3] = attemptId;
    int[] heldBefore = new int[group.size()];
    for (int i = 0; i < group.size(); i++) {
      LockKeys lockKeys = group.get(i).driver().keys();
      keys[2 * i] = lockKeys.lock();
      keys[2 * i + 1] = lockKeys.fence();
      heldBefore[i] = before.get(i) == null ? 0 : before.get(i).count();
      args[4 + i] = Integer.toString(heldBefore[i]);
    }
    long sentAt = context.clock().nanoTime();
    return context
        .scripts()
        .run(LockScripts.LOCK_ACQUIRE_ALL, keys, args)
        .thenApply(
            reply -> {
              if (Scripts.number(reply, 0) == 0) {
                if (reply.size() > 3 && Scripts.number(reply, 3) == 1) {
                  // an earlier attempt, whose reply was lost, took parts this one does not: all
                  // or none, also while waiting. The next attempts run under a new id: this
                  // give-back may run after one of them (its script reloaded after NOSCRIPT, a
                  // reconnect), and must then leave the grant it got alone
                  id = group.get(0).newAcquisitionId();
                  givingBack(giveBack(attemptId));
                }
                int blocker = (int) Scripts.number(reply, 1) - 1;
                return Outcome.busy(
                    Outcome.untilExpiry(Scripts.number(reply, 2)),
                    group.get(blocker).driver().channel());
              }
              List<Granted> grants = new ArrayList<>();
              for (int i = 0; i < group.size(); i++) {
                grants.add(
                    new Granted(
                        Scripts.number(reply, 1 + 2 * i), heldBefore[i] + 1, attemptId, sentAt));
              }
              return Outcome.granted(grants);
            });
  }

  /** Logs the failure of a give-back not waited for; its parts then end with their lease. */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void givingBack(CompletableFuture<?> giveBack) {
    giveBack.whenComplete(
        (released, failure) -> {
          if (failure != null) {
            log.warn(
                "{}: could not give back parts an earlier attempt took; they expire with their"
                    + " lease: {}",
                subject.name(),
                Failures.unwrap(failure).toString());
          }
        });
  }

  /**
   * Gives back every part an attempt may have taken, as {@link MutexClaim} does for one: each part
   * records this acquisition's id, and goes back to the count the client knew where it still does.
   */
  @Override
  public CompletableFuture<?> giveBackInDoubt() {
    return giveBack(id);
  }

  /** Gives back every part the attempts run under {@code acquisitionId} may have taken. */
  private CompletableFuture<?> giveBack(String acquisitionId) {
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (int i = 0; i < group.size(); i++) {
      int heldBefore = before.get(i) == null ? 0 : before.get(i).count();
      releases.add(group.get(i).giveBackInDoubt(owner, acquisitionId, heldBefore));
    }
    return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * A group of reentrant locks: it registers for no direct grant, but it may wait alone on the
   * topic of a part whose client hears a grant to a registration of an ended acquisition.
   */
  @Override
  public boolean givesBackGrants() {
    return group.get(0).driver().grantsDirectly();
  }

  /**
   * Gives back a direct grant nobody took, on every part (the topic does not say which part's): an
   * acquisition id names one acquisition of one lock, so on the other parts it changes nothing.
   */
  @Override
  public CompletableFuture<?> giveBackGrant(String owner, String acquisitionId, long token) {
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (LockCore part : group) {
      releases.add(MutexClaim.giveBackGrant(part, owner, acquisitionId, token));
    }
    return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]));
  }

  @Override
  public CompletableFuture<?> rollback(List<Granted> grants) {
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (int i = 0; i < group.size(); i++) {
      Granted granted = grants.get(i);
      releases.add(
          group.get(i).giveBackInDoubt(owner, granted.acquisitionId(), granted.holdCount() - 1));
    }
    return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]));
  }
}
