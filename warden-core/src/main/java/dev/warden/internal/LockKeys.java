package dev.warden.internal;

/**
 * The Redis names of one lock: {@code warden:{NAME}:<type>} and keys derived from it. All share
 * the hash tag {@code {NAME}}, so that on Redis Cluster they live in one slot and one script can
 * touch them all.
 *
 * @param name the name the user gave
 * @param label how messages call the object, e.g. {@code fair lock}
 * @param lock the lock's main key
 */
record LockKeys(String name, String label, String lock) {

  /** The reentrant lock's names: {@code warden:{NAME}:lock}. */
  static LockKeys of(String name) {
    return of(name, "lock", "lock");
  }

  /** The names of a lock of a type: {@code warden:{NAME}:<type>}. */
  static LockKeys of(String name, String type, String label) {
    return new LockKeys(name, label, "warden:{" + Args.name(name) + "}:" + type);
  }

  /** A key of this lock: the main key plus {@code :suffix}. */
  String key(String suffix) {
    return lock + ":" + suffix;
  }

  /** The counter of the last fencing token issued. */
  String fence() {
    return key("fence");
  }

  /** The channel releases are published on. */
  String channel() {
    return key("released");
  }

  /** Describes the object for messages: {@code lock 'orders'}. */
  String describe() {
    return label + " '" + name + "'";
  }
}
