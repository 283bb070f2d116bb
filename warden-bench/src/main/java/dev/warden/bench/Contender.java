package dev.warden.bench;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Function;

/**
 * One library's client, connected for one point of one workload, seen through the {@code
 * java.util.concurrent.locks} interfaces that both Warden's and Redisson's locks implement: the
 * workloads are written once and run against either ({@link Library#connect} makes them).
 *
 * <p>Each call returns a new lock object; objects of the same name share the lock, as they do
 * across processes. A primitive the library does not offer throws {@link
 * UnsupportedOperationException}, which the benchmark reports as "not available in this build".
 * Thread-safe. {@link #close()} shuts the client down (held locks expire with their lease).
 */
final class Contender implements AutoCloseable {
  private final Function<String, Lock> locks;
  private final Function<String, Lock> fairLocks;
  private final Function<String, ReadWriteLock> readWriteLocks;
  private final Runnable shutdown;
  private final Function<Optional<Duration>, Contender> another;

  Contender(
      Function<String, Lock> locks,
      Function<String, Lock> fairLocks,
      Function<String, ReadWriteLock> readWriteLocks,
      Runnable shutdown,
      Function<Optional<Duration>, Contender> another) {
    this.locks = locks;
    this.fairLocks = fairLocks;
    this.readWriteLocks = readWriteLocks;
    this.shutdown = shutdown;
    this.another = another;
  }

  /**
   * Connects another client of the same library to the same Redis, with this watchdog timeout
   * (empty: the default); the caller closes it.
   */
  Contender another(Optional<Duration> watchdogTimeout) {
    return another.apply(watchdogTimeout);
  }

  /** Returns the reentrant lock of that name; its holds are renewed by the library's watchdog. */
  Lock lock(String name) {
    return locks.apply(name);
  }

  /** Returns the fair (first come, first served) lock of that name. */
  Lock fairLock(String name) {
    return fairLocks.apply(name);
  }

  /** Returns the read-write lock of that name. */
  ReadWriteLock readWriteLock(String name) {
    return readWriteLocks.apply(name);
  }

  @Override
  public void close() {
    shutdown.run();
  }
}
