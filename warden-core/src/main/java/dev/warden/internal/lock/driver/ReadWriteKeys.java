package dev.warden.internal.lock.driver;

import dev.warden.internal.redis.Namespace;

/**
 * The Redis names of one read-write lock, all under the hash tag {@code {NAME}}: see
 * rw-write-acquire.lua for what each holds.
 */
public record ReadWriteKeys(LockKeys base) {
  public static ReadWriteKeys of(String name) {
    return of(Namespace.DEFAULT, name);
  }

  public static ReadWriteKeys of(Namespace namespace, String name) {
    return new ReadWriteKeys(LockKeys.of(namespace, name, "rw", "read-write lock"));
  }

  public String name() {
    return base.name();
  }

  public String write() {
    return base.key("write");
  }

  public String reads() {
    return base.key("reads");
  }

  public String readers() {
    return base.key("readers");
  }

  public String writers() {
    return base.key("writers");
  }

  public String wanted() {
    return base.key("wanted");
  }

  public String fence() {
    return base.fence();
  }

  public String channel() {
    return base.channel();
  }

  /**
   * The names of one side of the lock (its hold key {@code key}) as a lock's names: the shared
   * fence and channel, and a description such as {@code read lock 'orders'}.
   */
  public LockKeys side(String key, String label) {
    return new LockKeys(name(), key, fence(), channel(), label + " '" + name() + "'");
  }

  /** The keys every rw acquire script takes, in order. */
  String[] acquireKeys() {
    return new String[] {write(), reads(), readers(), writers(), fence(), wanted()};
  }
}
