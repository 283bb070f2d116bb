package dev.warden;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock shared across processes: many readers or one writer.
 *
 * @since 0.2
 */
public interface DistributedReadWriteLock extends ReadWriteLock {
  /**
   * Returns the lock for reading, shared by any number of readers.
   *
   * @return the read lock
   */
  @Override
  DistributedLock readLock();

  /**
   * Returns the lock for writing, held by one writer and no reader.
   *
   * @return the write lock
   */
  @Override
  DistributedLock writeLock();
}
