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

  /** Returns true when signalled, false when the wait ran out. */
  private boolean awaitSignal(long waitNanos, boolean interruptible) throws InterruptedException {
    if (interruptible) {
      Interrupts.checkBefore(describe, "waiting");
    }
    Hold hold = currentHold();
    if (hold == null || hold.state() != Hold.State.HELD) {
      throw notHeld("await");
    }
    String waiter = context.owners().newHandle() + ":c";
    // subscribed before joining the list, so that the signal's message cannot be missed
    Topic topic = context.waiting().subscriptions().join(channel);
    int count;
    boolean signalled = false;
    InterruptedException interrupted = null;
    try {
      Calls.awaitUninterruptibly(topic.subscribed(), describe, "await");
      count =
          (int)
              Scripts.number(
                  call(
                      LockScripts.COND_ENQUEUE,
                      new String[] {holdKey, waiters, beats, arrivals},
                      "await",
                      hold.owner(),
                      waiter,
                      HEARTBEAT_TIMEOUT),
                  0);
      if (count == 0) {
        throw new LeaseExpiredException(
            describe + ": cannot await: the lock's hold of " + hold.owner() + " was lost");
      }
      // the one hold left after cond-enqueue.lua goes with the lock's own release
      hold.count(1);
      lock.release(hold);
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
                    call(LockScripts.COND_LEAVE, new String[] {waiters, beats}, "await", waiter), 0)
                == 0;
      }
    } finally {
      context.waiting().subscriptions().leave(topic);
    }
    reacquire(count, hold);
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

  /** Takes the lock again after a wait, with the hold count the thread had and its lease. */
  private void reacquire(int count, Hold before) {
    Lease lease = before.renewed() ? lock.watchdogLease() : Lease.fixed(before.leaseMillis());
    for (int i = 0; i < count; i++) {
      Interrupts.uninterruptibly(() -> lock.acquireForThread(lease, -1, false));
    }
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
