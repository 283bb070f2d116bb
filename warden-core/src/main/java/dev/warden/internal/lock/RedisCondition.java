package dev.warden.internal.lock;

import dev.warden.LeaseExpiredException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Interrupts;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.Lease;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Script;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.Claim;
import dev.warden.internal.wait.Outcome;
import dev.warden.internal.wait.Topic;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A {@link Condition} of a distributed lock, shared by every client of the lock name under the same
 * condition name.
 *
 * <p>{@code await} joins the condition's wait list while still holding the lock, then gives back
 * every hold with the lock's own release (so its waiters are woken as by an unlock); nobody can
 * signal in between, since signalling needs the lock, so no signal is lost. It then sleeps until a
 * signal message (or its heartbeat check, at least every second, finds it taken off the list), and
 * finally reacquires the lock, waiting as long as it takes, with the hold count it had. {@code
 * signal} takes the longest-waiting live waiter off the list and wakes it; waiters whose process
 * died (no heartbeat for {@link Settings#HEARTBEAT_TIMEOUT_MILLIS}) are skipped, so they cannot
 * swallow a signal. A waiter that times out or is interrupted leaves the list; if a signal had
 * already taken it off, the signal counts as received (an interrupt is then only recorded in the
 * thread's flag), so it is not lost.
 *
 * <p>Thread-bound like the lock's {@code lock()}: the calling thread must hold the lock, or {@link
 * IllegalMonitorStateException}. Cost: await is three script calls plus one per second of waiting;
 * signal and signalAll one each.
 *
 * <p>{@code await} returns, or throws, holding the lock again with the thread's own hold count (the
 * client's count: a hold Redis counted that the client did not know of is not taken back). When it
 * cannot take the lock back (Redis unreachable for longer than the command timeout), it throws that
 * {@link dev.warden.WardenException} without the lock, and the thread's hold is recorded as lost
 * with it: the caller's {@code unlock()} then throws {@link LeaseExpiredException} whose cause is
 * that failure, so a {@code finally { unlock(); }} does not hide it.
 */
// WaitNotInLoop: these are Condition's await methods, which may return spuriously; callers loop
@SuppressWarnings("WaitNotInLoop")
final class RedisCondition implements Condition {
  private static final String HEARTBEAT_TIMEOUT = Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS);

  private final LockCore lock;
  private final LockContext context;
  private final String holdKey;
  private final String describe;
  private final String waiters;
  private final String beats;
  private final String arrivals;
  private final String channel;

  RedisCondition(LockCore lock, String name) {
    this.lock = lock;
    this.context = lock.context();
    this.holdKey = lock.driver().holdKey();
    String base = holdKey + ":cond:" + name;
    this.describe = "condition '" + name + "' of " + lock.driver().describe();
    this.waiters = base + ":waiters";
    this.beats = base + ":beats";
    this.arrivals = base + ":arrivals";
    this.channel = base + ":signal";
  }

  @Override
  public void await() throws InterruptedException {
    awaitSignal(-1, true);
  }

  @Override
  public void awaitUninterruptibly() {
    Interrupts.uninterruptibly(() -> awaitSignal(-1, false));
  }

  @Override
  public long awaitNanos(long nanosTimeout) throws InterruptedException {
    long start = context.clock().nanoTime();
    awaitSignal(Math.max(0, nanosTimeout), true);
    return nanosTimeout - (context.clock().nanoTime() - start);
  }

  @Override
  public boolean await(long time, TimeUnit unit) throws InterruptedException {
    Args.unit(unit);
    return awaitSignal(Math.max(0, unit.toNanos(time)), true);
  }

  @Override
  // JavaUtilDate: Condition.awaitUntil(Date) is the JDK's signature
  @SuppressWarnings("JavaUtilDate")
  public boolean awaitUntil(Date deadline) throws InterruptedException {
    if (deadline == null) {
      throw new IllegalArgumentException("deadline must not be null");
    }
    long millis = deadline.getTime() - System.currentTimeMillis();
    return awaitSignal(TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis)), true);
  }

  /**
   * Returns true when signalled, false when the wait ran out. Returns, or throws, holding the lock
   * again with the count the thread had, except when the lock cannot be taken back: then throws
   * that failure, and the thread's hold is recorded as lost for it ({@link #lostForGood}).
   */
  private boolean awaitSignal(long waitNanos, boolean interruptible) throws InterruptedException {
    if (interruptible) {
      Interrupts.checkBefore(describe, "waiting");
    }
    Hold hold = currentHold();
    if (hold == null || hold.state() != Hold.State.HELD) {
      throw notHeld("await");
    }
    int count = hold.count(); // the client's count, which the thread gets back
    String waiter = context.owners().newHandle() + ":c";
    // subscribed before joining the list, so that the signal's message cannot be missed
    Topic topic = context.waiting().subscriptions().join(channel);
    boolean signalled = false;
    InterruptedException interrupted = null;
    RuntimeException failed = null;
    try {
      Calls.awaitUninterruptibly(topic.subscribed(), describe, "await");
      long enqueued =
          Scripts.number(
              call(
                  LockScripts.COND_ENQUEUE,
                  new String[] {holdKey, waiters, beats, arrivals},
                  "await",
                  hold.owner(),
                  waiter,
                  HEARTBEAT_TIMEOUT),
              0);
      if (enqueued == 0) {
        throw new LeaseExpiredException(
            describe + ": cannot await: the lock's hold of " + hold.owner() + " was lost");
      }
      // every hold goes with the lock's own release, as the client's last one
      hold.count(1);
      try {
        lock.release(hold);
      } catch (RuntimeException e) {
        // not known to be released (Redis failed) or lost: the thread holds nothing it can use
        lostForGood(hold, count, "await could not give the lock up: " + e.getMessage(), e);
        throw e;
      }
      try {
        Acquisition<Boolean> signal =
            new Acquisition<>(context.waiting(), new Signal(waiter), waitNanos).start();
        try {
          signalled = signal.await(interruptible) != null;
        } catch (InterruptedException e) {
          interrupted = e;
        }
        if (!signalled) {
          // leaving finds out whether a signal took this waiter off the list meanwhile
          signalled =
              Scripts.number(
                      call(LockScripts.COND_LEAVE, new String[] {waiters, beats}, "await", waiter),
                      0)
                  == 0;
        }
      } catch (RuntimeException e) {
        failed = e; // the lock is taken back first, as for an interrupt
      }
    } finally {
      context.waiting().subscriptions().leave(topic);
    }
    reacquire(count, hold);
    if (failed != null) {
      throw failed;
    }
    if (interrupted != null) {
      if (!signalled) {
        throw interrupted;
      }
      Thread.currentThread().interrupt(); // signalled first: the signal is kept, the flag too
    }
    return signalled;
  }

  @Override
  public void signal() {
    signal(false);
  }

  @Override
  public void signalAll() {
    signal(true);
  }

  private void signal(boolean all) {
    Hold hold = currentHold();
    if (hold == null) {
      throw notHeld(all ? "signalAll" : "signal");
    }
    long signalled =
        Scripts.number(
            call(
                LockScripts.COND_SIGNAL,
                new String[] {holdKey, waiters, beats},
                all ? "signalAll" : "signal",
                hold.owner(),
                all ? "1" : "0",
                channel),
            0);
    if (signalled < 0) {
      throw new LeaseExpiredException(
          describe + ": cannot signal: the lock's hold of " + hold.owner() + " was lost");
    }
  }

  /** The calling thread's hold of the lock, or null. */
  private Hold currentHold() {
    return lock.hold(context.owners().currentThread());
  }

  /**
   * Takes the lock again after a wait, with the hold count the thread had (the client's count, not
   * whatever Redis counted before) and its lease. If that fails, the thread's hold is recorded as
   * lost with the failure as the reason, so that the caller's {@code unlock()} reports it, and the
   * failure is thrown.
   */
  private void reacquire(int count, Hold before) {
    Lease lease = before.renewed() ? lock.watchdogLease() : Lease.fixed(before.leaseMillis());
    try {
      for (int i = 0; i < count; i++) {
        Interrupts.uninterruptibly(() -> lock.acquireForThread(lease, -1, false));
      }
    } catch (RuntimeException e) {
      lostForGood(before, count, "await could not take the lock back: " + e.getMessage(), e);
      throw e;
    }
  }

  /**
   * Records the thread's hold as lost for good after its lock was given up and could not be taken
   * back: {@code count} holds, each of which the thread's {@code unlock()} reports with {@link
   * LeaseExpiredException} carrying {@code cause}. What part of the lock was taken back already is
   * given back asynchronously (Redis may be unreachable; its lease bounds it otherwise).
   */
  private void lostForGood(Hold hold, int count, String reason, Throwable cause) {
    Hold partial = lock.hold(hold.owner());
    if (partial != null && partial != hold) {
      lock.forget(partial);
      // a release the client counts as the last one: the owner keeps none, whatever Redis counts
      var unused =
          lock.driver()
              .release(hold.owner(), 1, "")
              .exceptionally(failure -> null); // lease ends it
    }
    hold.count(count);
    hold.lostFor(reason, cause);
    context.holds().lost(hold); // no longer renewed (a release that failed left it renewed)
    context.holds().restoreLost(holdKey, hold);
  }

  private List<Object> call(Script script, String[] keys, String operation, String... args) {
    return Calls.awaitUninterruptibly(
        context.scripts().run(script, keys, args), describe, operation);
  }

  private IllegalMonitorStateException notHeld(String operation) {
    return new IllegalMonitorStateException(
        describe
            + ": cannot "
            + operation
            + ": the lock is not held by thread '"
            + Thread.currentThread().getName()
            + "'");
  }

  /** Waiting for the signal, as an {@link Acquisition}: the attempt asks "was I signalled?". */
  private final class Signal implements Claim<Boolean> {
    private final String waiter;

    Signal(String waiter) {
      this.waiter = waiter;
    }

    @Override
    public String describe() {
      return describe;
    }

    @Override
    public String channel() {
      return channel;
    }

    @Override
    public String waiterId() {
      return waiter;
    }

    @Override
    public CompletableFuture<Outcome<Boolean>> attempt(boolean othersWait) {
      return context
          .scripts()
          .run(
              LockScripts.COND_CHECK,
              new String[] {waiters, beats, arrivals},
              waiter,
              HEARTBEAT_TIMEOUT)
          .thenApply(
              reply ->
                  Scripts.succeeded(reply)
                      ? Outcome.granted(Boolean.TRUE)
                      : Outcome.busy(Settings.HEARTBEAT_MILLIS));
    }

    @Override
    public CompletableFuture<?> rollback(Boolean granted) {
      return CompletableFuture.completedFuture(null); // a signal is kept: see cond-leave.lua
    }
  }
}
