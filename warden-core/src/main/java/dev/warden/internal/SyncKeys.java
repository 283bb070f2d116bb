package dev.warden.internal;

/**
 * The Redis names of one synchronizer: a semaphore, a leased semaphore or a count-down latch. All
 * share the hash tag {@code {name}}, so that on Redis Cluster they live in one slot and one script
 * can touch them all.
 *
 * @param name the object's name as the user gave it
 * @param kind what it is, for messages: {@code semaphore}
 * @param key the object's main key, {@code warden:{name}:<type>}; its other keys extend it
 */
record SyncKeys(String name, String kind, String key) {

  static SyncKeys semaphore(String name) {
    return of("semaphore", "semaphore", name);
  }

  static SyncKeys leasedSemaphore(String name) {
    return of("leased semaphore", "leased-semaphore", name);
  }

  static SyncKeys latch(String name) {
    return of("count-down latch", "latch", name);
  }

  private static SyncKeys of(String kind, String type, String name) {
    return new SyncKeys(name, kind, "warden:{" + Args.name(name) + "}:" + type);
  }

  /** Returns one of the object's other keys: {@code warden:{name}:<type>:<suffix>}. */
  String key(String suffix) {
    return key + ":" + suffix;
  }

  /** The channel on which releases that somebody waits for are published. */
  String channel() {
    return key("released");
  }

  /**
   * The marker of one operation, which lives a little longer than the operation may be retried: a
   * script that finds it knows that it runs for the second time and changes nothing.
   */
  String operation(String operationId) {
    return key("op:" + operationId);
  }

  /** Describes the object for messages: {@code semaphore 'pool'}. */
  String describe() {
    return kind + " '" + name + "'";
  }
}
