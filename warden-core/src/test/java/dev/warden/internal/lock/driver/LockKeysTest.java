package dev.warden.internal.lock.driver;

import static org.assertj.core.api.Assertions.assertThat;

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

  /** The part of a key Redis Cluster hashes: between the first '{' and the next '}'. */
  private static String hashTag(String key) {
    int open = key.indexOf('{');
    int close = key.indexOf('}', open + 1);
    return key.substring(open + 1, close);
  }
}
