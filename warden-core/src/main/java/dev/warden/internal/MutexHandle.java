package dev.warden.internal;

import dev.warden.LockHandle;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A hold owned by a handle rather than a thread; usable from any thread. */
final class MutexHandle implements LockHandle {
  private static final Logger log = LoggerFactory.getLogger(MutexHandle.class);

  private final RedisMutex lock;
  private final Hold hold;
  private boolean closed; // guarded by this

  MutexHandle(RedisMutex lock, Hold hold) {
    this.lock = lock;
    this.hold = hold;
  }

  @Override
  public long fencingToken() {
    return hold.token;
  }

  @Override
  public boolean isHeld() {
    return lock.isHeldBy(hold.owner);
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
      lock.release(hold);
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
    return "LockHandle[" + lock.getName() + ", owner " + hold.owner + ", token " + hold.token + "]";
  }
}
