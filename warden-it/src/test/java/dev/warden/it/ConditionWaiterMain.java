package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import java.util.concurrent.locks.Condition;

/**
 * A separate JVM that takes a lock and waits on one of its conditions until killed. Arguments:
 * redis URI, lock name, condition name. Prints {@code AWAITING} just before it waits.
 */
// WaitNotInLoop: the worker reports what one await call returns
@SuppressWarnings("WaitNotInLoop")
public final class ConditionWaiterMain {
  private ConditionWaiterMain() {}

  public static void main(String[] args) throws InterruptedException {
    Warden warden = Warden.connect(args[0]);
    DistributedLock lock = warden.lock(args[1]);
    Condition condition = lock.newCondition(args[2]);
    lock.lock();
    System.out.println("AWAITING");
    System.out.flush();
    condition.await();
    System.out.println("SIGNALLED"); // never reached: the test kills this process first
  }
}
