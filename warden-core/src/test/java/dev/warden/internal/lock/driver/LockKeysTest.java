package dev.warden.internal.lock.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.redis.Namespace;
import org.junit.jupiter.api.Test;

class LockKeysTest {
  @Test
  void everyKeyAndTheChannelShareTheNamesHashTag() {
    LockKeys keys = LockKeys.of("orders");
    assertThat(keys.lock()).isEqualTo("warden:{orders}:lock");
    assertThat(keys.fence()).isEqualTo("warden:{orders}:lock:fence");
    assertThat(keys.channel()).isEqualTo("warden:{orders}:lock:released");
    assertThat(hashTag(keys.lock())).isEqualTo("orders");
    assertThat(hashTag(keys.fence())).isEqualTo("orders");
    assertThat(hashTag(keys.channel())).isEqualTo("orders");
    assertThat(keys.describe()).isEqualTo("lock 'orders'");
  }

  @Test
  void aKeyPrefixGoesBeforeTheNamespaceAndKeepsTheHashTag() {
    LockKeys keys = LockKeys.of(Namespace.of("billing"), "orders");
    assertThat(keys.lock()).isEqualTo("billing:warden:{orders}:lock");
    assertThat(keys.fence()).isEqualTo("billing:warden:{orders}:lock:fence");
    assertThat(keys.channel()).isEqualTo("billing:warden:{orders}:lock:released");
    assertThat(keys.releaseMarker("o")).isEqualTo("billing:warden:{orders}:lock:unlocked:o");
    assertThat(hashTag(keys.lock())).isEqualTo("orders");
    ReadWriteKeys rw = ReadWriteKeys.of(Namespace.of("a:b"), "orders");
    for (String key : rw.acquireKeys()) {
      assertThat(key).startsWith("a:b:warden:{orders}:rw");
    }
    assertThat(rw.channel()).isEqualTo("a:b:warden:{orders}:rw:released");
  }

  /** The part of a key Redis Cluster hashes: between the first '{' and the next '}'. */
  private static String hashTag(String key) {
    int open = key.indexOf('{');
    int close = key.indexOf('}', open + 1);
    return key.substring(open + 1, close);
  }
}
