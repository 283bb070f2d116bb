package dev.warden.internal;

/**
 * The Redis names of one lock. All share the hash tag {@code {name}}, so that on Redis Cluster
 * they live in one slot and one script can touch them all.
 */
record LockKeys(String name, String lock, String fence, String channel) {

  static LockKeys of(String name) {
    String base = "warden:{" + Args.name(name) + "}:lock";
    return new LockKeys(name, base, base + ":fence", base + ":released");
  }

  /** Describes the object for messages: {@code lock 'orders'}. */
  String describe() {
    return "lock '" + name + "'";
  }
}
