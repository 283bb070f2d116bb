package dev.warden;

import java.util.concurrent.TimeUnit;

/** A semaphore whose acquired permits each have an id and a lease measured by the server. */
public interface LeasedSemaphore {
  boolean trySetPermits(int permits);

  void addPermits(int delta);

  int availablePermits();

  String acquire(long leaseTime, TimeUnit unit) throws InterruptedException;

  /** Returns a permit id, or null if none is free. */
  String tryAcquire();

  String tryAcquire(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

  boolean tryRelease(String permitId);

  /** Releases a permit; IllegalArgumentException if the id is unknown or expired. */
  void release(String permitId);

  boolean updateLeaseTime(String permitId, long leaseTime, TimeUnit unit);
}
