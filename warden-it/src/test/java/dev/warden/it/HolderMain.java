package dev.warden.it;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A separate JVM that takes a lock with a watchdog lease, prints {@code LOCKED <token>} and then
 * waits until it is killed. Arguments: redis URI, lock name, watchdog timeout in ms, and optionally
 * the lock type ({@code lock}, the default, or {@code fair}).
 */
public final class HolderMain {
  private HolderMain() {}

  public static void main(String[] args) throws InterruptedException {
    Warden warden =
        Warden.builder()
            .uri(args[0])
            .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
            .build();
    boolean fair = args.length > 3 && args[3].equals("fair");
    DistributedLock lock = fair ? warden.fairLock(args[1]) : warden.lock(args[1]);
    System.out.println("STARTED");
    System.out.flush();
    lock.lock();
    System.out.println("LOCKED " + lock.fencingToken());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
