package dev.warden.internal;

import dev.warden.LeaseExpiredException;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A {@link Condition} of a distributed lock, shared by every client of the lock name under the
 * same condition name.
 *
 * <p>{@code await} joins the condition's wait list while still holding the lock, then gives back
 * every hold with the lock's own release (so its waiters are woken as by an unlock); nobody can
 * signal in between, since signalling needs the lock, so no signal is lost. It then sleeps until
 * a signal message (or its heartbeat check, at least every second, finds it taken off the list),
 * and finally reacquires the lock, waiting as long as it takes, with the hold count it had.
 * {@code signal} takes the longest-waiting live waiter off the list and wakes it; waiters whose
 * process died (no heartbeat for {@link FairDriver#HEARTBEAT_TIMEOUT_MILLIS}) are skipped, so they
 * cannot swallow a signal. A waiter that times out or is interrupted leaves the list; if a signal
 * had already taken it off, the signal counts as received (an interrupt is then only recorded in
 * the thread's flag), so it is not lost.
 *
 * <p>Thread-bound like the lock's {@code lock()}: the calling thread must hold the lock, or {@link
 * IllegalMonitorStateException}. Cost: await is three script calls plus one per second of waiting;
 * signal and signalAll one each.
 */
// WaitNotInLoop: these are Condition's await methods, which may return spuriously; callers loop
@SuppressWarnings("WaitNotInLoop")
final class RedisCondition implements Condition {
  private final WardenRuntime runtime;
  private final RedisMutex lock;
  private final String describe;
  private final String waiters;
  private final String beats;
  private final String arrivals;
  private final String channel;

  RedisCondition(WardenRuntime runtime, RedisMutex lock, String holdKey, String describeLock, String name) {
    this.runtime = runtime;
    this.lock = lock;
    String base = holdKey + ":cond:" + name;
    this.describe = "condition '" + name + "' of " + describeLock;
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
    try {
      awaitSignal(-1, false);
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible wait was interrupted", e);
    }
  }

  @Override
  public long awaitNanos(long nanosTimeout) throws InterruptedException {
    long start = System.nanoTime();
    awaitSignal(Math.max(0, nanosTimeout), true);
    return nanosTimeout - (System.nanoTime() - start);
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
    if (interruptible && Thread.interrupted()) {
      throw new InterruptedException(describe + ": interrupted before waiting");
    }
    Hold hold = lock.currentHold();
    if (hold == null || hold.state() != Hold.State.HELD) {
      throw notHeld("await");
    }
    String waiter = runtime.newHandleOwner() + ":c";
    // subscribed before joining the list, so that the signal's message cannot be missed
    WakeUps.Topic topic = runtime.wakeUps().join(channel);
    int count;
    boolean signalled = false;
    InterruptedException interrupted = null;
    try {
      Futures.awaitUninterruptibly(topic.subscribed(), describe, "await");
      count =
          (int)
              Scripts.number(
                  Futures.awaitUninterruptibly(
                      runtime
                          .scripts()
                          .run(
                              Scripts.COND_ENQUEUE,
                              new String[] {hold.driver.holdKey(), waiters, beats, arrivals},
                              hold.owner,
                              waiter,
                              Long.toString(FairDriver.HEARTBEAT_TIMEOUT_MILLIS)),
                      describe,
                      "await"),
                  0);
      if (count == 0) {
        throw new LeaseExpiredException(
            describe + ": cannot await: the lock's hold of " + hold.owner + " was lost");
      }
      lock.releaseForAwait(hold);
      Acquisition<Boolean> signal = new Acquisition<>(runtime, new Signal(waiter), waitNanos).start();
      try {
        signalled = Acquisitions.await(signal, describe, interruptible) != null;
      } catch (InterruptedException e) {
        interrupted = e;
      }
      if (!signalled) {
        // leaving finds out whether a signal took this waiter off the list meanwhile
        signalled =
            Scripts.number(
                    Futures.awaitUninterruptibly(
                        runtime.scripts().run(Scripts.COND_LEAVE, new String[] {waiters, beats}, waiter),
                        describe,
                        "await"),
                    0)
                == 0;
      }
    } finally {
      runtime.wakeUps().leave(topic);
    }
    lock.reacquireAfterAwait(count, hold);
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
    Hold hold = lock.currentHold();
    if (hold == null) {
      throw notHeld(all ? "signalAll" : "signal");
    }
    long signalled =
        Scripts.number(
            Futures.awaitUninterruptibly(
                runtime
                    .scripts()
                    .run(
                        Scripts.COND_SIGNAL,
                        new String[] {hold.driver.holdKey(), waiters, beats},
                        hold.owner,
                        all ? "1" : "0",
                        channel),
                describe,
                all ? "signalAll" : "signal"),
            0);
    if (signalled < 0) {
      throw new LeaseExpiredException(
          describe + ": cannot signal: the lock's hold of " + hold.owner + " was lost");
    }
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
  private final class Signal implements Acquisition.Claim<Boolean> {
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
    public CompletableFuture<Acquisition.Outcome<Boolean>> attempt(boolean othersWait) {
      return runtime
          .scripts()
          .run(
              Scripts.COND_CHECK,
              new String[] {waiters, beats, arrivals},
              waiter,
              Long.toString(FairDriver.HEARTBEAT_TIMEOUT_MILLIS))
          .thenApply(
              reply ->
                  Scripts.number(reply, 0) == 1
                      ? Acquisition.Outcome.granted(Boolean.TRUE)
                      : Acquisition.Outcome.busy(FairDriver.HEARTBEAT_MILLIS));
    }

    @Override
    public CompletableFuture<?> rollback(Boolean granted) {
      return CompletableFuture.completedFuture(null); // a signal is kept: see cond-leave.lua
    }
  }
}
