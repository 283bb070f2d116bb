package dev.warden;

import java.util.Locale;

/**
 * The kind of a Warden object, as {@link WardenListener} events and {@link WardenActivity} name it.
 *
 * @since 0.2
 */
public enum ObjectType {
  /** {@link Warden#lock(String)}. */
  LOCK,
  /** {@link Warden#fairLock(String)}. */
  FAIR_LOCK,
  /** The read lock of {@link Warden#readWriteLock(String)}. */
  READ_LOCK,
  /** The write lock of {@link Warden#readWriteLock(String)}. */
  WRITE_LOCK,
  /** {@link Warden#multiLock(DistributedLock...)}: its acquisitions (its holds are its parts'). */
  MULTI_LOCK,
  /** {@link Warden#semaphore(String)}. */
  SEMAPHORE,
  /** {@link Warden#leasedSemaphore(String)}. */
  LEASED_SEMAPHORE,
  /** {@link Warden#countDownLatch(String)}: its awaits count as acquisitions. */
  COUNT_DOWN_LATCH;

  private final String tag = name().toLowerCase(Locale.ROOT);

  /**
   * Returns the type's name in lower case ({@code fair_lock}), a stable value for metric tags.
   *
   * @return the lower-case name
   */
  public String tag() {
    return tag;
  }
}
