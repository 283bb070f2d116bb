package dev.warden.internal;

/**
 * The Redis names of one lock: {@code warden:{NAME}:<type>} and keys derived from it. All share
 * the hash tag {@code {NAME}}, so that on Redis Cluster they live in one slot and one script can
 * touch them all. The names used on every acquisition and release (and the description every
 * blocking call passes along for its error messages) are built once, here: a string built anew
 * costs an allocation, and its hash is computed anew by every map lookup.
 *
 * @param name the name the user gave
 * @param label how messages call the object, e.g. {@code fair lock}
 * @param lock the lock's main key
 * @param fence the counter of the last fencing token issued
 * @param channel the channel releases are published on
 * @param description how messages name the object, see {@link #describe()}
 */
record LockKeys(
    String name, String label, String lock, String fence, String channel, String description) {

  /** The reentrant lock's names: {@code warden:{NAME}:lock}. */
  static LockKeys of(String name) {
    return of(name, "lock", "lock");
  }

  /** The names of a lock of a type: {@code warden:{NAME}:<type>}. */
  static LockKeys of(String name, String type, String label) {
    String lock = "warden:{" + Args.name(name) + "}:" + type;
    return new LockKeys(
        name, label, lock, lock + ":fence", lock + ":released", label + " '" + name + "'");
  }

  /** A key of this lock: the main key plus {@code :suffix}. */
  String key(String suffix) {
    return lock + ":" + suffix;
  }

  /** Describes the object for messages: {@code lock 'orders'}. */
  String describe() {
    return description;
  }
}
