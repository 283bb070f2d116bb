package dev.warden;

import java.util.concurrent.TimeUnit;

/** A counting semaphore shared across processes, named as {@link java.util.concurrent.Semaphore}. */
public interface DistributedSemaphore {
  boolean trySetPermits(int permits);

  void addPermits(int delta);

  int availablePermits();

  int drainPermits();

  void acquire() throws InterruptedException;

  void acquire(int permits) throws InterruptedException;

  boolean tryAcquire();

  boolean tryAcquire(int permits);

  boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException;

  boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException;

  void release();

  void release(int permits);
}
