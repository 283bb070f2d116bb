package dev.warden.internal.redis;

import dev.warden.internal.base.Args;

/**
 * The Redis names of one Warden object: {@code warden:{NAME}:<type>} (under a key prefix, {@code
 * <prefix>:warden:{NAME}:<type>}: see {@link Namespace}) and keys derived from it. All share the
 * hash tag {@code {NAME}}, so that on Redis Cluster they live in one slot and one script can touch
 * them all. The names used on every call (and the description every blocking call passes along for
 * its error messages) are built once, here: a string built anew costs an allocation, and its hash
 * is computed anew by every map lookup.
 *
 * @param name the name the user gave
 * @param key the object's main key
 * @param channel the channel its releases are published on
 * @param description how messages name the object, e.g. {@code fair lock 'orders'}
 */
public record ObjectKeys(String name, String key, String channel, String description) {

  /**
   * The names of an object of a type, e.g. {@code of("orders", "fair", "fair lock")}.
   *
   * @throws IllegalArgumentException if the name is blank or contains a brace
   */
  public static ObjectKeys of(String name, String type, String label) {
    return of(Namespace.DEFAULT, name, type, label);
  }

  /**
   * The names of an object of a type in a namespace, e.g. {@code billing:warden:{orders}:fair}.
   *
   * @throws IllegalArgumentException if the name is blank or contains a brace
   */
  public static ObjectKeys of(Namespace namespace, String name, String type, String label) {
    String key = namespace.key(Args.name(name), type);
    return new ObjectKeys(name, key, key + ":released", label + " '" + name + "'");
  }

  /** One of the object's other keys: the main key plus {@code :suffix}. */
  public String key(String suffix) {
    return key + ":" + suffix;
  }

  /** Describes the object for messages: {@code lock 'orders'}. */
  public String describe() {
    return description;
  }
}
