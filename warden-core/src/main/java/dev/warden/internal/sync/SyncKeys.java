package dev.warden.internal.sync;

import dev.warden.ObjectType;
import dev.warden.internal.base.Subject;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.ObjectKeys;

/**
 * The Redis names of one synchronizer (a semaphore, a leased semaphore or a count-down latch),
 * after the schema every Warden object shares ({@link ObjectKeys}), plus its operation markers.
 *
 * @param object the object's names: main key, channel, description
 * @param subject its type and name, for events and activity entries
 */
record SyncKeys(ObjectKeys object, Subject subject) {

  static SyncKeys semaphore(String name) {
    return semaphore(Namespace.DEFAULT, name);
  }

  static SyncKeys semaphore(Namespace namespace, String name) {
    return new SyncKeys(
        ObjectKeys.of(namespace, name, "semaphore", "semaphore"),
        new Subject(ObjectType.SEMAPHORE, name));
  }

  static SyncKeys leasedSemaphore(String name) {
    return leasedSemaphore(Namespace.DEFAULT, name);
  }

  static SyncKeys leasedSemaphore(Namespace namespace, String name) {
    return new SyncKeys(
        ObjectKeys.of(namespace, name, "leased-semaphore", "leased semaphore"),
        new Subject(ObjectType.LEASED_SEMAPHORE, name));
  }

  static SyncKeys latch(String name) {
    return latch(Namespace.DEFAULT, name);
  }

  static SyncKeys latch(Namespace namespace, String name) {
    return new SyncKeys(
        ObjectKeys.of(namespace, name, "latch", "count-down latch"),
        new Subject(ObjectType.COUNT_DOWN_LATCH, name));
  }

  /** The object's name as the user gave it. */
  String name() {
    return object.name();
  }

  /** The object's main key, {@code warden:{name}:<type>}; its other keys extend it. */
  String key() {
    return object.key();
  }

  /** Returns one of the object's other keys: {@code warden:{name}:<type>:<suffix>}. */
  String key(String suffix) {
    return object.key(suffix);
  }

  /** The channel on which releases that somebody waits for are published. */
  String channel() {
    return object.channel();
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
    return object.describe();
  }
}
