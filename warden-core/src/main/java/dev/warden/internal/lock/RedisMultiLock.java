package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.ObjectType;
import dev.warden.WardenListener;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.wait.Acquisition;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock made of several locks, held all together or not at all.
 *
 * <p>The parts are taken in one global order, by Redis Cluster hash slot and then by key, so that
 * two multi-locks of the same locks given in different orders cannot deadlock. Reentrant locks that
 * share a slot are taken together by one script ({@link GroupClaim}), all or none; other parts one
 * after the other, each waiting with its own machinery. If a part cannot be had in time, or the
 * caller is interrupted, or Redis fails, or a part the thread held turns out lost (the call then
 * throws {@link dev.warden.LeaseExpiredException} naming it, as a lock's own re-entry would), the
 * release of every part taken so far, in its group and the groups before, is sent before the call
 * returns or throws, and not waited for (a frozen Redis cannot keep the caller past its wait; a
 * release Redis never runs ends with the part's lease): no partial hold is left behind in this
 * client, nor in Redis once it answers. Each part's hold is an ordinary hold of that lock (renewed
 * by the lease keeper without an explicit lease), and {@link #unlock()} gives back every part,
 * reporting the first failure only after trying them all.
 *
 * <p>Supports {@code lock}, {@code lockInterruptibly}, {@code tryLock}, their lease variants,
 * {@code unlock} and {@code isHeldByCurrentThread}; the rest throws {@link
 * UnsupportedOperationException}. Thread-bound, like the parts' {@code lock()}.
 */
final class RedisMultiLock extends ThreadBoundLock {
  private static final Logger log = LoggerFactory.getLogger(RedisMultiLock.class);

  private final LockContext context;
  private final List<RedisMutex> parts; // in the global order
  private final List<List<RedisMutex>> groups; // consecutive parts taken by one call
  private final String describe;
  private final Subject subject;

  // ReferenceEquality: a lock of this very Warden: its context instance, not an equal one
  @SuppressWarnings("ReferenceEquality")
  RedisMultiLock(LockContext context, DistributedLock... locks) {
    this.context = context;
    if (locks == null || locks.length == 0) {
      throw new IllegalArgumentException("locks must not be empty");
    }
    List<RedisMutex> sorted = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < locks.length; i++) {
      DistributedLock lock = locks[i];
      if (!(lock instanceof RedisMutex mutex) || mutex.core().context() != context) {
        throw new IllegalArgumentException(
            "locks[" + i + "] must be a lock of this Warden (not a multi-lock): " + lock);
      }
      RedisMutex part = (RedisMutex) lock;
      if (!keys.add(part.core().driver().holdKey())) {
        throw new IllegalArgumentException(
            "locks[" + i + "] is given twice: " + part.core().driver().describe());
      }
      sorted.add(part);
    }
    sorted.sort(
        Comparator.comparingInt(
                (RedisMutex part) -> SlotHash.getSlot(part.core().driver().holdKey()))
            .thenComparing(part -> part.core().driver().holdKey()));
    this.parts = List.copyOf(sorted);
    this.groups = group(parts);
    this.describe = "multi-lock of " + parts.size() + " locks (" + names(parts) + ")";
    this.subject = new Subject(ObjectType.MULTI_LOCK, describe);
  }

  /** Consecutive reentrant locks of one slot form a group; every other part is alone. */
  private static List<List<RedisMutex>> group(List<RedisMutex> parts) {
    List<List<RedisMutex>> groups = new ArrayList<>();
    List<RedisMutex> current = new ArrayList<>();
    for (RedisMutex part : parts) {
      boolean joins =
          !current.isEmpty()
              && part.core().driver().joinsGroups()
              && current.get(0).core().driver().joinsGroups()
              && SlotHash.getSlot(part.core().driver().holdKey())
                  == SlotHash.getSlot(current.get(0).core().driver().holdKey());
      if (!joins && !current.isEmpty()) {
        groups.add(current);
        current = new ArrayList<>();
      }
      current.add(part);
    }
    groups.add(current);
    return groups;
  }

  private static String names(List<RedisMutex> parts) {
    List<String> names = new ArrayList<>();
    parts.forEach(part -> names.add(part.core().driver().describe()));
    return String.join(", ", names);
  }

  @Override
  public String getName() {
    return describe;
  }

  // ---- acquisition (the overloads: ThreadBoundLock) ----

  @Override
  protected String describe() {
    return describe;
  }

  @Override
  protected String offers() {
    return "a multi-lock (it supports lock, tryLock, their lease variants, unlock and"
        + " isHeldByCurrentThread); use the parts for it";
  }

  @Override
  protected Lease watchdogLease() {
    return Lease.renewed(context.settings().watchdogLeaseMillis());
  }

  /**
   * Takes every group in order within the wait, reported to listeners as one acquisition; on any
   * failure gives back what it took.
   */
  @Override
  protected boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    Events events = context.waiting().events();
    if (!events.on()) {
      return acquireGroups(lease, waitNanos, interruptible);
    }
    long started = context.clock().nanoTime();
    long id = Events.newAcquisitionId();
    events.acquisitionStarted(subject.type(), subject.name(), id);
    WardenListener.Outcome outcome = WardenListener.Outcome.FAILED;
    try {
      boolean got = acquireGroups(lease, waitNanos, interruptible);
      outcome = got ? WardenListener.Outcome.ACQUIRED : WardenListener.Outcome.TIMED_OUT;
      return got;
    } catch (InterruptedException e) {
      outcome = WardenListener.Outcome.CANCELLED;
      throw e;
    } finally {
      events.acquisitionEnded(
          subject.type(), subject.name(), id, outcome, context.clock().nanoTime() - started);
    }
  }

  private boolean acquireGroups(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    long deadline = context.clock().nanoTime() + waitNanos;
    List<List<RedisMutex>> taken = new ArrayList<>();
    boolean complete = false;
    try {
      for (List<RedisMutex> group : groups) {
        long left = waitNanos < 0 ? -1 : Math.max(0, deadline - context.clock().nanoTime());
        boolean got =
            group.size() == 1
                ? group.get(0).core().acquireForThread(lease, left, interruptible, false)
                : acquireGroup(group, lease, left, interruptible);
        if (!got) {
          return false;
        }
        taken.add(group);
      }
      complete = true;
      return true;
    } finally {
      if (!complete) {
        giveBack(taken);
      }
    }
  }

  private boolean acquireGroup(
      List<RedisMutex> group, Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    String owner = context.owners().currentThread();
    List<LockCore> cores = new ArrayList<>();
    List<Hold> before = new ArrayList<>();
    for (RedisMutex part : group) {
      cores.add(part.core());
      before.add(part.core().holdBeforeAcquiring(owner));
    }
    GroupClaim claim = new GroupClaim(subject, cores, owner, before, lease.millis());
    List<Granted> grants =
        new Acquisition<>(context.waiting(), claim, waitNanos).start().await(interruptible);
    if (grants == null) {
      return false;
    }
    for (int i = 0; i < group.size(); i++) {
      try {
        cores.get(i).adopt(before.get(i), owner, grants.get(i), lease);
      } catch (RuntimeException e) {
        // this part's hold was lost (its grant went back, and e says so): the caller gets none
        // of the group, so the grants after it go back unused and the parts adopted before it
        // are given back as a group taken earlier is
        for (int j = group.size() - 1; j > i; j--) {
          logFailure(cores.get(j), cores.get(j).giveBack(owner, grants.get(j)));
        }
        giveBackParts(cores.subList(0, i));
        throw e;
      }
    }
    return true;
  }

  /**
   * Gives back the groups taken so far, last first, without waiting: each part's give-back (naming
   * the acquisition it undoes) is sent now (so Redis runs it before anything this thread does next)
   * and its failure logged; one Redis never runs is bounded by the part's lease. So a frozen Redis
   * cannot keep the caller past its wait.
   */
  private void giveBack(List<List<RedisMutex>> taken) {
    for (int g = taken.size() - 1; g >= 0; g--) {
      List<LockCore> cores = new ArrayList<>();
      taken.get(g).forEach(part -> cores.add(part.core()));
      giveBackParts(cores);
    }
  }

  /** Gives back the calling thread's holds of these parts, last first, without waiting. */
  private void giveBackParts(List<LockCore> cores) {
    String owner = context.owners().currentThread();
    for (int i = cores.size() - 1; i >= 0; i--) {
      LockCore core = cores.get(i);
      Hold hold = core.hold(owner);
      if (hold == null) {
        continue; // already ended (its re-entry was refused as a lost lease)
      }
      logFailure(core, core.giveBackAsync(hold));
    }
  }

  /** Logs the failure of a give-back sent without waiting: the part expires with its lease. */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void logFailure(LockCore core, CompletableFuture<?> giveBack) {
    giveBack.whenComplete(
        (released, failure) -> {
          if (failure != null) {
            log.warn(
                "{}: could not give back {}; it expires with its lease: {}",
                describe,
                core.driver().describe(),
                Failures.unwrap(failure).toString());
          }
        });
  }

  @Override
  public void unlock() {
    RuntimeException first = null;
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        parts.get(i).unlock();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public boolean isHeldByCurrentThread() {
    for (RedisMutex part : parts) {
      if (!part.isHeldByCurrentThread()) {
        return false;
      }
    }
    return true;
  }

  // ---- not offered by the multi-lock (see also ThreadBoundLock) ----

  @Override
  public int getHoldCount() {
    throw unsupported("getHoldCount");
  }

  @Override
  public long fencingToken() {
    throw unsupported("fencingToken");
  }

  @Override
  public LockHandle acquire(Duration waitTime) {
    throw unsupported("acquire");
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime) {
    throw unsupported("tryAcquire");
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime) {
    throw unsupported("tryAcquire");
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime) {
    throw unsupported("acquireAsync");
  }

  @Override
  public String toString() {
    return describe;
  }
}
