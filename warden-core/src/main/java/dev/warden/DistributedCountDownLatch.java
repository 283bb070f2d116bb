package dev.warden;

import java.util.concurrent.TimeUnit;

/** A count-down latch shared across processes, named as {@link java.util.concurrent.CountDownLatch}. */
public interface DistributedCountDownLatch {
  /** Sets the count only if it is not yet set or already at zero. */
  boolean trySetCount(long count);

  void countDown();

  long getCount();

  void await() throws InterruptedException;

  boolean await(long timeout, TimeUnit unit) throws InterruptedException;

  boolean delete();
}
