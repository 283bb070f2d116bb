package dev.warden.internal.lock;

import dev.warden.LockHandle;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Args;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.wait.Acquisition;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A hold owned by a handle rather than a thread; usable from any thread. */
final class MutexHandle implements LockHandle {
  private static final Logger log = LoggerFactory.getLogger(MutexHandle.class);

  private final RedisMutex lock;
  private final Hold hold;
  private final int acknowledgedReplicas; // -1 when no replication policy applied
  private boolean closed; // guarded by this

  MutexHandle(RedisMutex lock, Hold hold) {
    this(lock, hold, -1);
  }

  MutexHandle(RedisMutex lock, Hold hold, int acknowledgedReplicas) {
    this.lock = lock;
    this.hold = hold;
    this.acknowledgedReplicas = acknowledgedReplicas;
  }

  @Override
  public int acknowledgedReplicas() {
    return acknowledgedReplicas;
  }

  /**
   * The handle an asynchronous acquisition ends with, completed on the callback executor (never on
   * a Redis I/O thread). Cancelling the returned future abandons the acquisition; a grant that
   * arrives after that is given back by the acquisition itself, and a handle made before it is
   * closed here.
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  static CompletableFuture<LockHandle> whenAcquired(
      RedisMutex lock,
      Acquisition<Granted> acquisition,
      Function<Granted, MutexHandle> newHandle,
      Supplier<LockTimeoutException> timedOut) {
    Executor callbacks = lock.core().context().callbacks();
    String object = lock.core().driver().describe();
    CompletableFuture<LockHandle> handle = new CompletableFuture<>();
    handle.whenComplete(
        (ignored, failure) -> {
          if (handle.isCancelled()) {
            acquisition.cancel();
          }
        });
    acquisition.whenComplete(
        (granted, failure) -> {
          if (failure != null) {
            Throwable cause = Failures.unwrap(failure);
            if (!(cause instanceof CancellationException)) {
              callbacks.execute(
                  () -> handle.completeExceptionally(Failures.forCaller(object, "acquire", cause)));
            }
          } else if (granted == null) {
            callbacks.execute(() -> handle.completeExceptionally(timedOut.get()));
          } else {
            MutexHandle made = newHandle.apply(granted);
            callbacks.execute(
                () -> {
                  if (!handle.complete(made)) {
                    made.closeQuietly();
                  }
                });
          }
        });
    return handle;
  }

  @Override
  public long fencingToken() {
    return hold.token();
  }

  @Override
  public boolean isHeld() {
    return lock.isHeldBy(hold.owner());
  }

  @Override
  public CompletionStage<Void> leaseLost() {
    return hold.lost().minimalCompletionStage();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    try {
      lock.core().release(hold);
      closed = true;
    } catch (IllegalMonitorStateException expired) {
      closed = true; // the hold is gone either way; report it once
      throw expired;
    }
  }

  @Override
  public boolean extend(Duration leaseTime) {
    long leaseMillis = Args.leaseMillis("leaseTime", leaseTime);
    synchronized (this) {
      return !closed && lock.core().setLease(hold, leaseMillis, "extend");
    }
  }

  @Override
  public synchronized void closeAfter(Duration keepFor) {
    long keepMillis = Args.notNegativeMillis("keepFor", keepFor);
    if (keepMillis == 0) {
      close();
      return;
    }
    if (closed) {
      return;
    }
    try {
      lock.core().releaseAfter(hold, keepMillis);
      closed = true;
    } catch (IllegalMonitorStateException expired) {
      closed = true; // the hold is gone either way; report it once
      throw expired;
    }
  }

  /** Releases the hold, logging instead of throwing: for holds nobody will use. */
  void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      log.warn("could not release an unused hold of {}: {}", lock.getName(), e.toString());
    }
  }

  @Override
  public String toString() {
    return "LockHandle["
        + lock.getName()
        + ", owner "
        + hold.owner()
        + ", token "
        + hold.token()
        + "]";
  }
}
