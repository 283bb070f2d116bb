package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;

/** The lock contract on {@link Warden#fairLock(String)}. */
class FairLockContractIT extends LockContract {
  @Override
  DistributedLock lockOf(Warden warden, String name) {
    return warden.fairLock(name);
  }
}
