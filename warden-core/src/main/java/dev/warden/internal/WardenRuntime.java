package dev.warden.internal;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.LockInfo;
import java.time.Duration;

/** Placeholder replaced by the real runtime. */
public final class WardenRuntime {
  public static WardenRuntime start(
      String uri, Duration watchdogTimeout, Duration commandTimeout, Duration recheckInterval) {
    throw new UnsupportedOperationException("not yet");
  }

  public DistributedLock lock(String name) { throw new UnsupportedOperationException(); }
  public LockInfo inspect(String name) { throw new UnsupportedOperationException(); }
  public DistributedLock fairLock(String name) { throw new UnsupportedOperationException(); }
  public DistributedReadWriteLock readWriteLock(String name) { throw new UnsupportedOperationException(); }
  public DistributedLock multiLock(DistributedLock... locks) { throw new UnsupportedOperationException(); }
  public DistributedSemaphore semaphore(String name) { throw new UnsupportedOperationException(); }
  public LeasedSemaphore leasedSemaphore(String name) { throw new UnsupportedOperationException(); }
  public DistributedCountDownLatch countDownLatch(String name) { throw new UnsupportedOperationException(); }
  public void close() {}
}
