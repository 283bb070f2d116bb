/**
 * Warden's API: distributed locks and synchronizers on Redis, shared by every process that uses the
 * same Redis and the same names.
 *
 * <ul>
 *   <li>{@link dev.warden.Warden} is the entry point: one per application and Redis deployment,
 *       made with {@link dev.warden.Warden#connect(String)} or {@link dev.warden.Warden#builder()},
 *       closed at shutdown. Every other object comes from it, by name.
 *   <li>{@link dev.warden.DistributedLock} is a reentrant {@link java.util.concurrent.locks.Lock}
 *       with leases and fencing tokens; {@link dev.warden.Warden#fairLock(String)} serves waiters
 *       first come, first served, and {@link dev.warden.Warden#multiLock} takes several locks at
 *       once. {@link dev.warden.DistributedReadWriteLock} admits many readers or one writer.
 *   <li>{@link dev.warden.LockHandle} is a hold owned by a handle rather than a thread, for
 *       asynchronous code and virtual threads.
 *   <li>{@link dev.warden.DistributedSemaphore} counts permits without owners, as {@link
 *       java.util.concurrent.Semaphore}; {@link dev.warden.LeasedSemaphore} leases each permit, so
 *       a process that dies does not keep it. {@link dev.warden.DistributedCountDownLatch} opens
 *       when its count reaches zero.
 *   <li>{@link dev.warden.LockInfo} and {@link dev.warden.WardenStats} are snapshots for
 *       diagnostics and metrics.
 *   <li>{@link dev.warden.WardenException} is every Redis failure; {@link
 *       dev.warden.LeaseExpiredException} says a hold ran out before its release; {@link
 *       dev.warden.LockTimeoutException} says a handle could not be acquired in time.
 * </ul>
 *
 * <p>Release what you take in a {@code finally} block, or with try-with-resources for a handle:
 *
 * <pre>{@code
 * try (Warden warden = Warden.connect("redis://localhost:6379")) {
 *   DistributedLock lock = warden.lock("invoice-42");
 *   lock.lock();
 *   try {
 *     charge(invoice, lock.fencingToken());
 *   } finally {
 *     lock.unlock();
 *   }
 *
 *   try (LockHandle hold = lock.acquire(Duration.ofSeconds(5))) {
 *     storage.write(record, hold.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p>Only this package is API; {@code dev.warden.internal} and its sub-packages may change without
 * notice.
 *
 * @since 0.2
 */
package dev.warden;
