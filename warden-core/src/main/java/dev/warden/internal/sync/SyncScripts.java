package dev.warden.internal.sync;

import dev.warden.internal.redis.Script;

/** The synchronizers' scripts, beside this package: semaphore-, leased-semaphore- and latch-*. */
final class SyncScripts {
  static final Script SEMAPHORE_UPDATE = load("semaphore-update");
  static final Script LEASED_SEMAPHORE_ACQUIRE = load("leased-semaphore-acquire");
  static final Script LEASED_SEMAPHORE_RELEASE = load("leased-semaphore-release");
  static final Script LEASED_SEMAPHORE_RENEW = load("leased-semaphore-renew");
  static final Script LEASED_SEMAPHORE_ADD = load("leased-semaphore-add");
  static final Script LEASED_SEMAPHORE_COUNT = load("leased-semaphore-count");
  static final Script LATCH_SET = load("latch-set");
  static final Script LATCH_COUNT_DOWN = load("latch-count-down");
  static final Script LATCH_AWAIT = load("latch-await");
  static final Script LATCH_DELETE = load("latch-delete");

  private SyncScripts() {}

  private static Script load(String name) {
    return Script.load(SyncScripts.class, name);
  }
}
