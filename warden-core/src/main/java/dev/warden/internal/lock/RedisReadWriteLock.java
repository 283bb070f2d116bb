package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lock.driver.ReadDriver;
import dev.warden.internal.lock.driver.ReadWriteKeys;
import dev.warden.internal.lock.driver.WriteDriver;

/**
 * A read-write lock: many readers or one writer, both reentrant. The writer may also read, and
 * releasing its write hold then leaves it reading (downgrade) and lets waiting readers in. A thread
 * that holds only read holds and asks for the write lock gets an {@link
 * IllegalMonitorStateException} at once: an upgrade could deadlock two such readers.
 *
 * <p>Writers are preferred: once a writer waits, new readers queue behind it (re-entries of current
 * readers still succeed), so a stream of overlapping readers cannot starve it. When a writer
 * releases, all waiting readers are woken together. Read and write acquisitions share one sequence
 * of fencing tokens.
 */
final class RedisReadWriteLock implements DistributedReadWriteLock {
  private final RedisMutex readLock;
  private final RedisMutex writeLock;

  RedisReadWriteLock(LockContext context, String name) {
    ReadWriteKeys keys = ReadWriteKeys.of(context.namespace(), name);
    String markerMillis = context.settings().operationMarkerArgument();
    ReadDriver reads = new ReadDriver(context.scripts(), keys, markerMillis);
    RedisMutex readSide = new RedisMutex(context, reads, LockCore.Guard.NONE);
    WriteDriver writes =
        new WriteDriver(
            context.scripts(),
            keys,
            markerMillis,
            owner -> {
              // the read holds this client knows the owner has: none when it knows them lost, or
              // they ended for it (an explicit lease ran out, a failed last release gave them up)
              Hold read = readSide.core().liveHold(owner);
              return read != null && read.state() != Hold.State.LOST ? read.count() : 0;
            });
    this.readLock = readSide;
    this.writeLock =
        new RedisMutex(
            context,
            writes,
            owner -> {
              Hold read = readSide.core().liveHold(owner);
              Hold write = context.holds().get(writes.holdKey(), owner);
              if (read != null && read.state() == Hold.State.HELD && write == null) {
                throw new IllegalMonitorStateException(
                    writes.describe()
                        + ": thread '"
                        + Thread.currentThread().getName()
                        + "' holds read holds: a read lock cannot be upgraded (release them first)");
              }
            });
  }

  @Override
  public DistributedLock readLock() {
    return readLock;
  }

  @Override
  public DistributedLock writeLock() {
    return writeLock;
  }
}
