package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.LockInfo;
import dev.warden.WardenActivity;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lease.LeaseKeeper;
import dev.warden.internal.lock.driver.FairDriver;
import dev.warden.internal.lock.driver.LockKeys;
import dev.warden.internal.lock.driver.ReentrantDriver;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Waiting;
import java.util.List;
import java.util.concurrent.Executor;

/** The lock primitives of one client: the one way into this package. */
public final class Locks {
  private final LockContext context;

  /**
   * @param keeper renews the holds taken without an explicit lease
   * @param callbacks completes the futures users see
   */
  public Locks(
      Settings settings,
      Clock clock,
      Owners owners,
      Scripts scripts,
      Calls calls,
      Waiting waiting,
      LeaseKeeper keeper,
      Executor callbacks) {
    this.context =
        new LockContext(
            settings,
            clock,
            owners,
            scripts,
            calls,
            waiting,
            new Holds(keeper, clock),
            new HandOff.Rows(clock),
            callbacks);
  }

  /** The reentrant lock of that name. */
  public DistributedLock lock(String name) {
    return new RedisMutex(context, reentrantDriver(name), LockCore.Guard.NONE);
  }

  /** The fair lock of that name. */
  public DistributedLock fairLock(String name) {
    return new RedisMutex(
        context,
        new FairDriver(context.scripts(), name, context.settings().operationMarkerArgument()),
        LockCore.Guard.NONE);
  }

  /** The read-write lock of that name. */
  public DistributedReadWriteLock readWriteLock(String name) {
    return new RedisReadWriteLock(context, name);
  }

  /** A multi-lock of locks made by this object. */
  public DistributedLock multiLock(DistributedLock... locks) {
    return new RedisMultiLock(context, locks);
  }

  /** Reads the reentrant lock's whole state (holders, counts, TTL, tokens, waiting clients). */
  public LockInfo inspect(String name) {
    ReentrantDriver driver = reentrantDriver(name);
    return Calls.awaitUninterruptibly(driver.inspect(), driver.describe(), "inspect");
  }

  /** Every hold this client records now, oldest first. */
  public List<WardenActivity.Hold> activity() {
    return context.holds().activity();
  }

  /** Returns the number of holds this client records now. */
  public int holds() {
    return context.holds().size();
  }

  private ReentrantDriver reentrantDriver(String name) {
    return new ReentrantDriver(
        context.scripts(),
        context.owners(),
        LockKeys.of(name),
        context.settings().operationMarkerArgument());
  }
}
