package dev.warden.internal.lock.driver;

import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.ObjectKeys;

/**
 * The Redis names of one lock: {@code warden:{NAME}:<type>} and keys derived from it, after the
 * schema every Warden object shares ({@link ObjectKeys}), plus the fence counter.
 *
 * @param name the name the user gave
 * @param lock the lock's main key, a hash of owner to hold count
 * @param fence the counter of the last fencing token issued
 * @param channel the channel releases are published on
 * @param description how messages name the lock, see {@link #describe()}
 */
public record LockKeys(String name, String lock, String fence, String channel, String description) {

  /** The reentrant lock's names: {@code warden:{NAME}:lock}. */
  public static LockKeys of(String name) {
    return of(Namespace.DEFAULT, name);
  }

  /** The reentrant lock's names in a namespace: {@code <namespace>{NAME}:lock}. */
  public static LockKeys of(Namespace namespace, String name) {
    return of(namespace, name, "lock", "lock");
  }

  /** The names of a lock of a type: {@code warden:{NAME}:<type>}. */
  public static LockKeys of(String name, String type, String label) {
    return of(Namespace.DEFAULT, name, type, label);
  }

  /** The names of a lock of a type in a namespace: {@code <namespace>{NAME}:<type>}. */
  public static LockKeys of(Namespace namespace, String name, String type, String label) {
    ObjectKeys keys = ObjectKeys.of(namespace, name, type, label);
    return new LockKeys(name, keys.key(), keys.key("fence"), keys.channel(), keys.describe());
  }

  /** A key of this lock: the main key plus {@code :suffix}. */
  public String key(String suffix) {
    return lock + ":" + suffix;
  }

  /**
   * The marker of {@code owner}'s last release that ended its hold: {@code
   * <lock>:unlocked:<owner>}, holding that release's id for a while (see lock-release.lua), so that
   * the release, run again after its reply was lost, finds that it was the one that ended the hold.
   */
  public String releaseMarker(String owner) {
    return key("unlocked:" + owner);
  }

  /** Describes the lock for messages: {@code lock 'orders'}. */
  public String describe() {
    return description;
  }
}
