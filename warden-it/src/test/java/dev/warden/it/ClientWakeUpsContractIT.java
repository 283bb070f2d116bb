package dev.warden.it;

import dev.warden.WakeUps;
import dev.warden.testkit.WardenDeployment;
import org.junit.jupiter.api.Nested;

/**
 * The contract suites of every lock and synchronizer again, with every {@code Warden} publishing
 * its wake-ups from the client ({@link WakeUps#FROM_CLIENT}), the mode {@code build()} chooses on a
 * server that refuses PUBLISH inside scripts. Their tests with a recheck interval of a minute pass
 * only if each wake-up is delivered. On one server (shared); the condition's signals are here too.
 */
@WardenDeployment(
    value = WardenDeployment.Kind.SINGLE,
    shared = true,
    wakeUps = WakeUps.FROM_CLIENT)
class ClientWakeUpsContractIT {
  @Nested
  class ReentrantLock extends ReentrantLockContractIT {}

  @Nested
  class FairLock extends FairLockContractIT {}

  @Nested
  class ReadLock extends ReadLockContractIT {}

  @Nested
  class WriteLock extends WriteLockContractIT {}

  @Nested
  class Condition extends ConditionIT {}

  @Nested
  class Semaphore extends SemaphoreContractIT {}

  @Nested
  class LeasedSemaphore extends LeasedSemaphoreContractIT {}

  @Nested
  class CountDownLatch extends LatchContractIT {}
}
