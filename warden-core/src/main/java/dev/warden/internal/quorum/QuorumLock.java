package dev.warden.internal.quorum;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.lock.Locks;
import dev.warden.internal.lock.QuorumPart;
import dev.warden.internal.lock.ThreadBoundLock;
import dev.warden.internal.redis.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * The quorum lock (Redlock): the reentrant lock of one name on N independent deployments, one
 * {@code Warden} each, held while a majority of them hold it for this owner within its validity.
 *
 * <p>An acquisition sends a fixed-lease acquisition to every part at once, each bounded by a tenth
 * of the lease; it succeeds when a majority granted it and the validity (lease minus elapsed minus
 * drift of 1 % of the lease + 2 ms) is positive. The fencing token is the largest of the majority's
 * tokens, written back to every part taken, so that any later majority, which overlaps this one,
 * mints above it. Otherwise every part is given back (a call past its bound too, when it completes)
 * and the acquisition tries again after 100 to 300 ms, within the caller's wait. Holds without an
 * explicit lease take the smallest watchdog timeout of the parts' clients and are renewed on all
 * parts every third of it ({@link QuorumHandle}).
 *
 * <p>Thread-bound holds ({@code lock}, {@code tryLock}) belong to this object and the calling
 * thread, and are reentrant for that thread only while the hold is valid (a local check, no round
 * trip): once it was lost or its validity ended, a nested {@code lock}/{@code tryLock} throws
 * {@link dev.warden.LeaseExpiredException} instead of taking a new hold, and so does each {@code
 * unlock} of it; the last {@code unlock} drops it. Handles ({@code acquire}, {@code tryAcquire})
 * are their own owners. {@code fencingToken()} gives the thread's hold's token. Conditions, {@code
 * forceUnlock}, {@code isLocked}, {@code remainTimeToLive} are not offered.
 *
 * <p>Threads: the parts' calls run on the quorum threads of each part's own {@code Warden}; the
 * bounds, back-offs, renewals and the end of fixed leases on the timer of the first part's {@code
 * Warden}, with its clock (so closing that {@code Warden} ends the renewals: its holds are then
 * lost). Thread-safe.
 */
public final class QuorumLock extends ThreadBoundLock {
  private final Quorum quorum;
  private final long watchdogLeaseMillis;
  private final Map<Thread, ThreadHold> threads = new ConcurrentHashMap<>();

  /** A thread's hold: the handle and how many times the thread entered it. */
  private static final class ThreadHold {
    final QuorumHandle handle;
    int count = 1; // only its thread touches it

    ThreadHold(QuorumHandle handle) {
      this.handle = handle;
    }
  }

  /**
   * Makes the quorum lock of {@code locks}, which must be reentrant locks of one name made by
   * distinct {@code Warden} instances.
   *
   * @throws NullPointerException if {@code locks} or one of them is null
   * @throws IllegalArgumentException if there are none, one is not a plain reentrant lock, the
   *     names differ, or a lock is given twice
   */
  public QuorumLock(DistributedLock... locks) {
    this(partsOf(locks));
  }

  private QuorumLock(List<QuorumPart> parts) {
    this(quorumOf(parts), minimumWatchdogLease(parts));
  }

  /** A quorum lock over any parts (tests give scripted ones). */
  QuorumLock(Quorum quorum, long watchdogLeaseMillis) {
    this.quorum = quorum;
    this.watchdogLeaseMillis = watchdogLeaseMillis;
  }

  private static List<QuorumPart> partsOf(DistributedLock... locks) {
    if (locks == null) {
      throw new NullPointerException("locks must not be null");
    }
    if (locks.length == 0) {
      throw new IllegalArgumentException("locks must not be empty");
    }
    List<QuorumPart> parts = new ArrayList<>();
    for (int i = 0; i < locks.length; i++) {
      DistributedLock lock = locks[i];
      if (lock == null) {
        throw new NullPointerException("locks[" + i + "] must not be null");
      }
      Optional<QuorumPart> part = Locks.quorumPart(lock);
      if (part.isEmpty()) {
        throw new IllegalArgumentException(
            "locks[" + i + "] must be a reentrant lock of a Warden (Warden.lock(name)): " + lock);
      }
      if (!lock.getName().equals(locks[0].getName())) {
        throw new IllegalArgumentException(
            "locks["
                + i
                + "] must have the name of locks[0] ("
                + locks[0].getName()
                + "): "
                + lock.getName());
      }
      for (QuorumPart earlier : parts) {
        if (earlier.scripts() == part.get().scripts()) {
          throw new IllegalArgumentException(
              "locks[" + i + "] comes from the same Warden as an earlier lock: " + lock);
        }
      }
      parts.add(part.get());
    }
    return parts;
  }

  private static Quorum quorumOf(List<QuorumPart> parts) {
    List<Part> algorithmParts = new ArrayList<>();
    parts.forEach(part -> algorithmParts.add(new ClientPart(part)));
    QuorumPart first = parts.get(0);
    String describe =
        "quorum lock " + first.lock().getName() + " on " + parts.size() + " deployments";
    return new Quorum(algorithmParts, describe, first.clock(), first.timer(), first.callbacks());
  }

  private static long minimumWatchdogLease(List<QuorumPart> parts) {
    long watchdog = Long.MAX_VALUE;
    for (QuorumPart part : parts) {
      watchdog = Math.min(watchdog, part.watchdogLeaseMillis());
    }
    return watchdog;
  }

  @Override
  public String getName() {
    return quorum.describe();
  }

  // ---- thread-bound (the overloads: ThreadBoundLock) ----

  @Override
  protected String describe() {
    return quorum.describe();
  }

  @Override
  protected String offers() {
    return "a quorum lock (it supports lock, tryLock, their lease variants, unlock,"
        + " isHeldByCurrentThread, getHoldCount, fencingToken and handles)";
  }

  @Override
  protected Lease watchdogLease() {
    return Lease.renewed(watchdogLeaseMillis);
  }

  /**
   * Re-enters the thread's hold while it is valid, or takes a new one when the thread has none.
   *
   * @throws dev.warden.LeaseExpiredException if the thread's hold was lost or ran past its validity
   *     (its count stays: each {@code unlock} of it throws this too)
   */
  @Override
  protected boolean acquireForThread(Lease lease, long waitNanos, boolean interruptible)
      throws InterruptedException {
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine != null) {
      if (!mine.handle.isValid()) {
        throw mine.handle.expired("acquire again");
      }
      mine.count++;
      return true;
    }
    QuorumHandle handle =
        await(quorum.acquire(lease.millis(), lease.renewed(), waitNanos), interruptible);
    if (handle == null) {
      return false;
    }
    threads.put(Thread.currentThread(), new ThreadHold(handle));
    return true;
  }

  /** Waits for an acquisition; an interrupt abandons it if {@code interruptible}. */
  private QuorumHandle await(QuorumAcquisition acquisition, boolean interruptible)
      throws InterruptedException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return acquisition.result().get();
        } catch (InterruptedException e) {
          if (interruptible) {
            acquisition.abandon();
            throw e;
          }
          interrupted = true;
        } catch (ExecutionException | CancellationException e) {
          throw Failures.forCaller(quorum.describe(), "acquire", e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Gives back one hold of the calling thread; the last one releases every part.
   *
   * @throws IllegalMonitorStateException if the thread holds none
   * @throws dev.warden.LeaseExpiredException if the hold had been lost or ran past its validity
   *     (the count goes down all the same; at none the hold is dropped)
   */
  @Override
  public void unlock() {
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine == null) {
      throw new IllegalMonitorStateException(
          quorum.describe() + ": not held by thread " + Thread.currentThread().getName());
    }
    if (mine.count > 1) {
      mine.count--;
      if (!mine.handle.isValid()) {
        throw mine.handle.expired("unlock");
      }
      return;
    }
    threads.remove(Thread.currentThread());
    mine.handle.close();
  }

  /** The calling thread's hold, or null; for tests. */
  QuorumHandle threadHold() {
    ThreadHold mine = threads.get(Thread.currentThread());
    return mine == null ? null : mine.handle;
  }

  @Override
  public boolean isHeldByCurrentThread() {
    ThreadHold mine = threads.get(Thread.currentThread());
    return mine != null && mine.handle.isHeld();
  }

  /** The calling thread's count of valid holds: 0 once its hold was lost or ran out. */
  @Override
  public int getHoldCount() {
    ThreadHold mine = threads.get(Thread.currentThread());
    return mine == null || !mine.handle.isValid() ? 0 : mine.count;
  }

  /**
   * The token of the calling thread's valid hold.
   *
   * @throws IllegalMonitorStateException if it holds none; {@link dev.warden.LeaseExpiredException}
   *     once its hold was lost or ran past its validity
   */
  @Override
  public long fencingToken() {
    ThreadHold mine = threads.get(Thread.currentThread());
    if (mine == null) {
      throw new IllegalMonitorStateException(
          quorum.describe() + ": not held by thread " + Thread.currentThread().getName());
    }
    if (!mine.handle.isValid()) {
      throw mine.handle.expired("give its fencing token");
    }
    return mine.handle.fencingToken();
  }

  // ---- handles ----

  @Override
  public LockHandle acquire(Duration waitTime) throws InterruptedException {
    return tryAcquire(waitTime)
        .orElseThrow(
            () ->
                new LockTimeoutException(quorum.describe() + ": not acquired within " + waitTime));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    Interrupts.checkBefore(quorum.describe(), "acquiring");
    return Optional.ofNullable(await(quorum.acquire(watchdogLeaseMillis, true, waitNanos), true));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration waitTime, Duration leaseTime)
      throws InterruptedException {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    long lease = Args.leaseMillis("leaseTime", leaseTime);
    Interrupts.checkBefore(quorum.describe(), "acquiring");
    return Optional.ofNullable(await(quorum.acquire(lease, false, waitNanos), true));
  }

  /**
   * Acquires without a thread of its own; the result completes on the callback executor. Cancelling
   * it abandons the attempt: a hold taken meanwhile is given back.
   */
  @Override
  public CompletableFuture<LockHandle> acquireAsync(Duration waitTime) {
    long waitNanos = Args.waitNanos("waitTime", waitTime);
    QuorumAcquisition acquisition = quorum.acquire(watchdogLeaseMillis, true, waitNanos);
    CompletableFuture<LockHandle> result = new CompletableFuture<>();
    var unused =
        result.whenComplete(
            (handle, failure) -> {
              if (result.isCancelled()) {
                acquisition.abandon();
              }
            });
    var unusedToo =
        acquisition
            .result()
            .whenComplete(
                (handle, failure) ->
                    quorum.callbacks().execute(() -> deliver(result, handle, failure, waitTime)));
    return result;
  }

  private void deliver(
      CompletableFuture<LockHandle> result,
      QuorumHandle handle,
      Throwable failure,
      Duration waitTime) {
    if (failure != null) {
      if (!(Failures.unwrap(failure) instanceof CancellationException)) {
        result.completeExceptionally(Failures.forCaller(quorum.describe(), "acquire", failure));
      }
    } else if (handle == null) {
      result.completeExceptionally(
          new LockTimeoutException(quorum.describe() + ": not acquired within " + waitTime));
    } else if (!result.complete(handle)) {
      handle.abandon(); // cancelled meanwhile
    }
  }

  @Override
  public String toString() {
    return quorum.describe();
  }
}
