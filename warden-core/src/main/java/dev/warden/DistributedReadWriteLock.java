package dev.warden;

import java.util.concurrent.locks.ReadWriteLock;

/** A read-write lock shared across processes: many readers or one writer. */
public interface DistributedReadWriteLock extends ReadWriteLock {
  @Override
  DistributedLock readLock();

  @Override
  DistributedLock writeLock();
}
