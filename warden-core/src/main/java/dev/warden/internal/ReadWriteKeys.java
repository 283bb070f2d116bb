package dev.warden.internal;

/**
 * The Redis names of one read-write lock, all under the hash tag {@code {NAME}}: see
 * rw-write-acquire.lua for what each holds.
 */
record ReadWriteKeys(LockKeys base) {
  static ReadWriteKeys of(String name) {
    return new ReadWriteKeys(LockKeys.of(name, "rw", "read-write lock"));
  }

  String name() {
    return base.name();
  }

  String write() {
    return base.key("write");
  }

  String reads() {
    return base.key("reads");
  }

  String readers() {
    return base.key("readers");
  }

  String writers() {
    return base.key("writers");
  }

  String wanted() {
    return base.key("wanted");
  }

  String fence() {
    return base.fence();
  }

  String channel() {
    return base.channel();
  }

  /** The keys every rw acquire script takes, in order. */
  String[] acquireKeys() {
    return new String[] {write(), reads(), readers(), writers(), fence(), wanted()};
  }
}
