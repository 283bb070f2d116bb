package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A separate JVM that takes a lock with a watchdog lease, prints {@code LOCKED <token>} and then
 * waits until it is killed. Arguments: redis URI, lock name, watchdog timeout in ms.
 */
public final class HolderMain {
  private HolderMain() {}

  public static void main(String[] args) throws InterruptedException {
    Warden warden =
        Warden.builder()
            .uri(args[0])
            .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
            .build();
    DistributedLock lock = warden.lock(args[1]);
    lock.lock();
    System.out.println("LOCKED " + lock.fencingToken());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
