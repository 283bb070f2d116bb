package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;

/** The lock contract on the write lock of {@link Warden#readWriteLock(String)}. */
class WriteLockContractIT extends LockContract {
  @Override
  DistributedLock lockOf(Warden warden, String name) {
    return warden.readWriteLock(name).writeLock();
  }
}
