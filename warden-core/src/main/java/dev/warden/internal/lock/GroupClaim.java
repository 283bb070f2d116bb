package dev.warden.internal.lock;

import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lock.driver.LockKeys;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Claim;
import dev.warden.internal.wait.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Several locks of one slot whose drivers join groups (reentrant locks), taken by one script call
 * (lock-acquire-all.lua) for one owner: all or none. A refusal names the part that refused, and the
 * acquisition waits on that part's channel.
 */
final class GroupClaim implements Claim<List<Granted>> {
  private final Subject subject;
  private final List<LockCore> group;
  private final String owner;
  private final List<Hold> before;
  private final long leaseMillis;
  private final String id;

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
    args[3] = id;
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
                int blocker = (int) Scripts.number(reply, 1) - 1;
                return Outcome.busy(
                    Scripts.number(reply, 2), group.get(blocker).driver().channel());
              }
              List<Granted> grants = new ArrayList<>();
              for (int i = 0; i < group.size(); i++) {
                grants.add(
                    new Granted(Scripts.number(reply, 1 + 2 * i), heldBefore[i] + 1, id, sentAt));
              }
              return Outcome.granted(grants);
            });
  }

  /**
   * Gives back every part an attempt may have taken, as {@link MutexClaim} does for one: each part
   * records this acquisition's id, and goes back to the count the client knew where it still does.
   */
  @Override
  public CompletableFuture<?> giveBackInDoubt() {
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (int i = 0; i < group.size(); i++) {
      int heldBefore = before.get(i) == null ? 0 : before.get(i).count();
      releases.add(group.get(i).giveBackInDoubt(owner, id, heldBefore));
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
