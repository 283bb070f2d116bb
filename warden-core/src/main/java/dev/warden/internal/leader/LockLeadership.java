package dev.warden.internal.leader;

import dev.warden.DistributedLock;
import dev.warden.Leadership;
import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.WardenException;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Leadership} on the handle API of one lock: campaigns with {@code acquireAsync}, leads
 * while the handle holds the lock, and ends the leadership when {@link LockHandle#leaseLost()}
 * completes or it is closed.
 *
 * <p>Threads: campaigns start on the caller's thread ({@link #start()}), the callback executor (a
 * campaign that timed out, a lost lease) or the timer (a retry after a failure), and only send
 * asynchronous calls there. State changes under this object's monitor, which is never held while
 * calling anything but the serial callback queue; callbacks run on the callback executor, one at a
 * time ({@link SerialCallbacks}).
 */
public final class LockLeadership implements Leadership {
  private static final Logger LOG = LoggerFactory.getLogger(LockLeadership.class);

  /** How long one campaign waits before it starts again (nothing is lost between the two). */
  static final Duration CAMPAIGN = Duration.ofSeconds(30);

  /** How long a candidate waits before it campaigns again after a failure. */
  static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String name;
  private final DistributedLock lock;
  private final Timer timer;
  private final SerialCallbacks callbacks;
  private final Consumer<LockLeadership> onClose;
  private final List<Elected> elected = new ArrayList<>(); // before start only
  private final List<Revoked> revoked = new ArrayList<>(); // before start only
  private boolean started; // guarded by this
  private boolean closed; // guarded by this
  private CompletableFuture<LockHandle> campaign; // guarded by this; the one in flight
  private LockHandle leading; // guarded by this; the hold while this instance leads
  private volatile long term = -1; // the current term, -1 when not leading

  /**
   * @param lock the lock whose hold is the leadership
   * @param callbacks the executor the callbacks run on (one at a time)
   * @param onClose runs once when the leadership is closed (not when its Warden closes it)
   */
  public LockLeadership(
      String name,
      DistributedLock lock,
      Timer timer,
      Executor callbacks,
      Consumer<LockLeadership> onClose) {
    this.name = name;
    this.lock = lock;
    this.timer = timer;
    this.callbacks = new SerialCallbacks(callbacks);
    this.onClose = onClose;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized Leadership onElected(Elected callback) {
    Args.required("elected", callback);
    requireNotStarted();
    elected.add(callback);
    return this;
  }

  @Override
  public synchronized Leadership onRevoked(Revoked callback) {
    Args.required("revoked", callback);
    requireNotStarted();
    revoked.add(callback);
    return this;
  }

  private void requireNotStarted() {
    if (started || closed) {
      throw new IllegalStateException(
          this + ": callbacks are registered before start(), and it was started or closed");
    }
  }

  @Override
  public Leadership start() {
    synchronized (this) {
      if (started || closed) {
        throw new IllegalStateException(this + " was " + (closed ? "closed" : "started already"));
      }
      started = true;
    }
    campaign();
    return this;
  }

  @Override
  public boolean isLeader() {
    return term >= 0;
  }

  @Override
  public OptionalLong term() {
    long now = term;
    return now >= 0 ? OptionalLong.of(now) : OptionalLong.empty();
  }

  /** Starts waiting for the lock, unless closed; never blocks. */
  // FutureReturnValueIgnored: the callback handles the outcome; the copy it returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  private void campaign() {
    synchronized (this) {
      if (closed) {
        return;
      }
    }
    CompletableFuture<LockHandle> next;
    try {
      next = lock.acquireAsync(CAMPAIGN);
    } catch (RuntimeException e) {
      next = CompletableFuture.failedFuture(e);
    }
    boolean open;
    synchronized (this) {
      open = !closed;
      if (open) {
        campaign = next;
      }
    }
    if (!open) {
      next.cancel(false); // closed meanwhile: a grant that raced in is given back
      return;
    }
    CompletableFuture<LockHandle> mine = next;
    mine.whenComplete((hold, failure) -> campaignEnded(mine, hold, failure));
  }

  private void campaignEnded(
      CompletableFuture<LockHandle> which, LockHandle hold, Throwable failure) {
    if (failure != null) {
      Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
      if (cause instanceof LockTimeoutException) {
        campaign(); // still held by another: wait again
      } else if (!(cause instanceof CancellationException)) {
        LOG.warn("{}: campaign failed, trying again in a second: {}", this, cause.toString());
        retryLater();
      }
      return;
    }
    boolean leads;
    synchronized (this) {
      leads = !closed && campaign == which;
      if (leads) {
        campaign = null;
        leading = hold;
        long electedTerm = hold.fencingToken();
        term = electedTerm;
        var unused = callbacks.run("elected", () -> elected.forEach(e -> e.elected(electedTerm)));
      }
    }
    if (!leads) {
      releaseQuietly(hold); // closed meanwhile: nobody leads with it
      return;
    }
    var unused = hold.leaseLost().thenRun(() -> leaseLost(hold));
  }

  private void retryLater() {
    try {
      timer.schedule(this::campaign, RETRY_NANOS);
    } catch (RejectedExecutionException closing) {
      // the Warden is closing: its close ends this leadership
    }
  }

  /** The leader's lease was lost: the leadership ends, and this instance campaigns again. */
  private void leaseLost(LockHandle hold) {
    synchronized (this) {
      if (leading != hold) {
        return;
      }
      leading = null;
      var unused = revoke(Reason.LEASE_LOST);
    }
    releaseQuietly(hold); // forgets the local record (the release finds it gone)
    campaign();
  }

  /** Ends the current term and queues its callbacks; under the monitor. */
  private CompletableFuture<Void> revoke(Reason reason) {
    long ended = term;
    term = -1;
    return callbacks.run("revoked", () -> revoked.forEach(r -> r.revoked(ended, reason)));
  }

  // FutureReturnValueIgnored: the callback logs the outcome; the copy it returns is unused
  @SuppressWarnings("FutureReturnValueIgnored")
  private void releaseQuietly(LockHandle hold) {
    hold.closeAsync()
        .whenComplete(
            (ignored, failure) -> {
              if (failure != null) {
                LOG.debug("{}: released a hold that had ended: {}", this, failure.toString());
              }
            });
  }

  @Override
  public void close() {
    CompletableFuture<Void> released = stop(true);
    if (released == null || callbacks.isCallbackThread()) {
      return;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          released.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          throw cause instanceof WardenException warden
              ? warden
              : new WardenException(this + ": could not release the lock", cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The Warden closes gracefully: the leadership ends as {@link #close()} ends it, its lock
   * released once the revoked callback returned (handed over), not waited for here.
   */
  public void wardenClosing() {
    var unused = stop(true);
  }

  /** The Warden is closing: the leadership ends, and its lock is left to expire. */
  public void wardenClosed() {
    var unused = stop(false);
  }

  /**
   * Stops campaigning and ends the leadership; returns the release (after the revoked callbacks),
   * or null when there was nothing to release.
   */
  private CompletableFuture<Void> stop(boolean release) {
    CompletableFuture<LockHandle> pending;
    LockHandle hold;
    CompletableFuture<Void> told = null;
    synchronized (this) {
      if (closed) {
        return null;
      }
      closed = true;
      pending = campaign;
      campaign = null;
      hold = leading;
      leading = null;
      if (hold != null) {
        told = revoke(Reason.STOPPED);
      }
    }
    if (release) {
      onClose.accept(this);
    }
    if (pending != null) {
      pending.cancel(false); // abandons the wait; a grant that raced in is given back
    }
    if (hold == null || !release) {
      return null;
    }
    return told.thenCompose(ignored -> hold.closeAsync());
  }

  @Override
  public String toString() {
    return "leadership '" + name + "'";
  }
}
