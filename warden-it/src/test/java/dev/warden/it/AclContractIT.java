package dev.warden.it;

import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import org.junit.jupiter.api.Nested;

/**
 * The contract suites of every lock and synchronizer again, with every {@code Warden} connected as
 * a Redis user that has exactly the rule docs/security.md documents ({@link
 * WardenAcl#SINGLE_SERVER}): the proof that the rule is enough. A missing permission fails them
 * with NOPERM.
 */
@WardenDeployment(WardenDeployment.Kind.SINGLE_ACL)
class AclContractIT {
  @Nested
  class ReentrantLock extends ReentrantLockContractIT {}

  @Nested
  class FairLock extends FairLockContractIT {}

  @Nested
  class ReadLock extends ReadLockContractIT {}

  @Nested
  class WriteLock extends WriteLockContractIT {}

  @Nested
  class ReadWriteLock extends ReadWriteLockIT {}

  @Nested
  class MultiLock extends MultiLockIT {}

  @Nested
  class Condition extends ConditionIT {}

  @Nested
  class Semaphore extends SemaphoreContractIT {}

  @Nested
  class SemaphoreOnTheServer extends SemaphoreIT {}

  @Nested
  class LeasedSemaphore extends LeasedSemaphoreContractIT {}

  @Nested
  class LeasedSemaphoreOnTheServer extends LeasedSemaphoreIT {}

  @Nested
  class CountDownLatch extends LatchContractIT {}

  @Nested
  class CountDownLatchOnTheServer extends CountDownLatchIT {}
}
