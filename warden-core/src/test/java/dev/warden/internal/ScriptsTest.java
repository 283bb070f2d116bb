package dev.warden.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScriptsTest {
  private static final List<Scripts.Script> ALL =
      List.of(
          Scripts.LOCK_ACQUIRE,
          Scripts.LOCK_RELEASE,
          Scripts.LOCK_RENEW,
          Scripts.LOCK_FORCE_RELEASE,
          Scripts.LOCK_INSPECT,
          Scripts.SEMAPHORE_UPDATE,
          Scripts.LEASED_SEMAPHORE_ACQUIRE,
          Scripts.LEASED_SEMAPHORE_RELEASE,
          Scripts.LEASED_SEMAPHORE_RENEW,
          Scripts.LEASED_SEMAPHORE_ADD,
          Scripts.LEASED_SEMAPHORE_COUNT,
          Scripts.LATCH_SET,
          Scripts.LATCH_COUNT_DOWN,
          Scripts.LATCH_AWAIT,
          Scripts.LATCH_DELETE);

  @Test
  void everyScriptOpensWithItsNameAndAKeysArgvReturnsHeader() {
    for (Scripts.Script script : ALL) {
      assertThat(script.body()).as(script.name()).startsWith("-- " + script.name() + ": ");
      String header = script.body().substring(0, script.body().indexOf("\nlocal"));
      assertThat(header).as(script.name()).contains("-- KEYS").contains("-- Returns");
    }
  }

  @Test
  void theShaIsTheSha1OfTheBodyAsRedisComputesIt() {
    // well-known SHA-1 values pin the digest and its lower-case hex encoding
    assertThat(Scripts.Script.sha1("")).isEqualTo("da39a3ee5e6b4b0d3255bfef95601890afd80709");
    assertThat(Scripts.Script.sha1("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    assertThat(Scripts.Script.load("lock-release").sha()).hasSize(40).matches("[0-9a-f]{40}");
    assertThat(ALL.stream().map(Scripts.Script::sha).distinct()).hasSize(ALL.size());
  }

  @Test
  void noScriptWalksEveryFieldOfTheLockHash() {
    // cost must not grow with the hash: only the diagnostic inspect script reads it whole
    for (Scripts.Script script : ALL) {
      if (script != Scripts.LOCK_INSPECT) {
        assertThat(script.body()).as(script.name()).doesNotContain("HGETALL").doesNotContain("HKEYS");
      }
    }
  }
}
