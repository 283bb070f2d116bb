package dev.warden.internal.sync;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Waiting;

/** The synchronizers of one client: the one way into this package. */
public final class Synchronizers {
  private final SyncContext context;
  private final Namespace namespace;

  /**
   * @param namespace where the synchronizers' keys and channels live
   */
  public Synchronizers(
      Settings settings, Scripts scripts, Calls calls, Waiting waiting, Namespace namespace) {
    this.context = new SyncContext(settings, scripts, calls, waiting);
    this.namespace = namespace;
  }

  /** The semaphore of that name. */
  public DistributedSemaphore semaphore(String name) {
    return new RedisSemaphore(context, SyncKeys.semaphore(namespace, name));
  }

  /** The leased semaphore of that name. */
  public LeasedSemaphore leasedSemaphore(String name) {
    return new RedisLeasedSemaphore(context, SyncKeys.leasedSemaphore(namespace, name));
  }

  /** The count-down latch of that name. */
  public DistributedCountDownLatch countDownLatch(String name) {
    return new RedisCountDownLatch(context, SyncKeys.latch(namespace, name));
  }
}
