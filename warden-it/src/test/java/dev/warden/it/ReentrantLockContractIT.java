package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;

/** The lock contract on {@link Warden#lock(String)}. */
class ReentrantLockContractIT extends LockContract {
  @Override
  DistributedLock lockOf(Warden warden, String name) {
    return warden.lock(name);
  }
}
