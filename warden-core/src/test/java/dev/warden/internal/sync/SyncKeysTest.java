package dev.warden.internal.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.internal.redis.Namespace;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyncKeysTest {
  @Test
  void everyKeyChannelAndMarkerOfASynchronizerSharesTheNamesHashTag() {
    for (SyncKeys keys :
        List.of(
            SyncKeys.semaphore("pool"), SyncKeys.leasedSemaphore("pool"), SyncKeys.latch("pool"))) {
      for (String name :
          List.of(keys.key(), keys.key("queue"), keys.channel(), keys.operation("0af3"))) {
        assertThat(name).startsWith("warden:{pool}:");
      }
    }
  }

  @Test
  void aKeyPrefixGoesBeforeEveryKeyChannelAndMarker() {
    Namespace billing = Namespace.of("billing");
    for (SyncKeys keys :
        List.of(
            SyncKeys.semaphore(billing, "pool"),
            SyncKeys.leasedSemaphore(billing, "pool"),
            SyncKeys.latch(billing, "pool"))) {
      for (String name :
          List.of(keys.key(), keys.key("queue"), keys.channel(), keys.operation("0af3"))) {
        assertThat(name).startsWith("billing:warden:{pool}:");
      }
    }
  }

  @Test
  void keysAndDescriptionsNameTheKindOfObject() {
    SyncKeys semaphore = SyncKeys.semaphore("pool");
    assertThat(semaphore.key()).isEqualTo("warden:{pool}:semaphore");
    assertThat(semaphore.key("queue")).isEqualTo("warden:{pool}:semaphore:queue");
    assertThat(semaphore.channel()).isEqualTo("warden:{pool}:semaphore:released");
    assertThat(semaphore.operation("0af3")).isEqualTo("warden:{pool}:semaphore:op:0af3");
    assertThat(semaphore.describe()).isEqualTo("semaphore 'pool'");
    assertThat(SyncKeys.leasedSemaphore("pool").key()).isEqualTo("warden:{pool}:leased-semaphore");
    assertThat(SyncKeys.leasedSemaphore("pool").describe()).isEqualTo("leased semaphore 'pool'");
    assertThat(SyncKeys.latch("pool").key()).isEqualTo("warden:{pool}:latch");
    assertThat(SyncKeys.latch("pool").describe()).isEqualTo("count-down latch 'pool'");
  }

  @Test
  void namesAreCheckedLikeLockNames() {
    assertThatThrownBy(() -> SyncKeys.latch("a{b}")).hasMessageContaining("'a{b}'");
    assertThatThrownBy(() -> SyncKeys.semaphore(null))
        .hasMessage("name must not be null or blank: 'null'");
  }
}
