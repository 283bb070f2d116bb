package dev.warden.internal.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {
  @Test
  void idsAre128RandomBitsInLowerCaseHex() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      String id = Ids.random128();
      assertThat(id).matches("[0-9a-f]{32}");
      assertThat(seen.add(id)).isTrue();
    }
  }
}
