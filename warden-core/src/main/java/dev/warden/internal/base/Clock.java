package dev.warden.internal.base;

/**
 * Monotonic time, in nanoseconds, as {@link System#nanoTime()} gives it. Injected into everything
 * that measures waits, deadlines and leases, so that the engine can be driven in virtual time by
 * tests.
 */
@FunctionalInterface
public interface Clock {
  /** The machine's monotonic clock. */
  Clock SYSTEM = System::nanoTime;

  /** Returns the current time; only differences between two readings mean anything. */
  long nanoTime();
}
