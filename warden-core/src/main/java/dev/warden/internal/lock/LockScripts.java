package dev.warden.internal.lock;

import dev.warden.internal.redis.Script;

/** The scripts of the lock layer itself, beside this package: cond-*.lua and the multi-lock's. */
final class LockScripts {
  static final Script LOCK_ACQUIRE_ALL = load("lock-acquire-all");
  static final Script COND_ENQUEUE = load("cond-enqueue");
  static final Script COND_CHECK = load("cond-check");
  static final Script COND_LEAVE = load("cond-leave");
  static final Script COND_SIGNAL = load("cond-signal");

  private LockScripts() {}

  private static Script load(String name) {
    return Script.load(LockScripts.class, name);
  }
}
