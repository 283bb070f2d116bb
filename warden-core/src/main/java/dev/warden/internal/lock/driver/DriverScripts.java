package dev.warden.internal.lock.driver;

import dev.warden.internal.redis.Script;

/** The lock drivers' scripts, beside this package: lock-*, fair-* and rw-*.lua. */
final class DriverScripts {
  static final Script LOCK_ACQUIRE = load("lock-acquire");
  static final Script LOCK_RELEASE = load("lock-release");
  static final Script LOCK_RENEW = load("lock-renew");
  static final Script LOCK_FORCE_RELEASE = load("lock-force-release");
  static final Script LOCK_TRANSFER = load("lock-transfer");
  static final Script LOCK_INSPECT = load("lock-inspect");
  static final Script FAIR_ACQUIRE = load("fair-acquire");
  static final Script FAIR_RELEASE = load("fair-release");
  static final Script FAIR_LEAVE = load("fair-leave");
  static final Script FAIR_FORCE_RELEASE = load("fair-force-release");
  static final Script FAIR_HEARTBEAT = load("fair-heartbeat");
  static final Script RW_WRITE_ACQUIRE = load("rw-write-acquire");
  static final Script RW_READ_ACQUIRE = load("rw-read-acquire");
  static final Script RW_WRITE_RELEASE = load("rw-write-release");
  static final Script RW_READ_RELEASE = load("rw-read-release");
  static final Script RW_READ_RENEW = load("rw-read-renew");
  static final Script RW_WRITER_LEAVE = load("rw-writer-leave");
  static final Script RW_READ_QUERY = load("rw-read-query");
  static final Script RW_FORCE_RELEASE = load("rw-force-release");

  private DriverScripts() {}

  private static Script load(String name) {
    return Script.load(DriverScripts.class, name);
  }
}
