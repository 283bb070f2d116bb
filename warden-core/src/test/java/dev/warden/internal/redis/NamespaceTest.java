package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NamespaceTest {
  @Test
  void theDefaultIsWardensOwnNamespace() {
    assertThat(Namespace.DEFAULT.head()).isEqualTo("warden:");
    assertThat(Namespace.DEFAULT.key("orders", "lock")).isEqualTo("warden:{orders}:lock");
    assertThat(Namespace.DEFAULT.pattern()).isEqualTo("warden:*");
  }

  @Test
  void aPrefixComesFirstSoThatTheApplicationsOwnPatternCoversIt() {
    Namespace billing = Namespace.of("billing");
    assertThat(billing.prefix()).isEqualTo("billing");
    assertThat(billing.key("orders", "lock")).isEqualTo("billing:warden:{orders}:lock");
    assertThat(billing.pattern()).isEqualTo("billing:warden:*");
    assertThat(Namespace.of("team-a:billing.v2/eu_1").head())
        .isEqualTo("team-a:billing.v2/eu_1:warden:");
    assertThat(Namespace.of("p".repeat(Namespace.MAX_PREFIX_LENGTH)).prefix()).hasSize(64);
  }

  @Test
  void aPrefixWithBracesBlanksGlobsOrStrayColonsIsRefusedNamingIt() {
    for (String prefix :
        List.of("", " ", "a b", "a\tb", "{a}", "a}", "a*", "a?", "[a]", "a:", ":a", "a::b", "é")) {
      assertThatThrownBy(() -> Namespace.of(prefix))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("keyPrefix must be 1 to 64 letters, digits and . _ - /")
          .hasMessageEndingWith(": \"" + prefix + "\"");
    }
    assertThatThrownBy(() -> Namespace.of(null)).hasMessageEndingWith(": null");
    assertThatThrownBy(() -> Namespace.of("p".repeat(65))).hasMessageContaining("1 to 64");
  }

  @Test
  void aPrefixWithASegmentWardenIsRefusedSoThatNoNamespacesPatternCoversAnothers() {
    // ~billing:warden:* would cover billing:warden:warden:{orders}:lock, the keys of the prefix
    // billing:warden; ~warden:* (no prefix) those of the prefix warden
    for (String prefix :
        List.of("warden", "billing:warden", "billing:warden:eu", "warden:billing")) {
      assertThatThrownBy(() -> Namespace.of(prefix))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "keyPrefix must not have a segment 'warden' (its keys would fall under the ACL"
                  + " pattern of a shorter prefix, or of none): \""
                  + prefix
                  + "\"");
    }
    assertThat(Namespace.of("wardens:billing-warden:warden2").head())
        .isEqualTo("wardens:billing-warden:warden2:warden:");
  }

  @Test
  void noNamespacesPatternCoversAnothersKeys() {
    List<Namespace> namespaces =
        List.of(
            Namespace.DEFAULT,
            Namespace.of("billing"),
            Namespace.of("billing:eu"),
            Namespace.of("billing:wardens"),
            Namespace.of("wardens"),
            Namespace.of("b"));
    for (Namespace mine : namespaces) {
      for (Namespace other : namespaces) {
        String key = other.key("orders", "lock");
        String head = mine.pattern().substring(0, mine.pattern().length() - 1);
        assertThat(key.startsWith(head))
            .as("%s covers %s", mine.pattern(), key)
            .isEqualTo(mine.equals(other));
      }
    }
  }

  @Test
  void theRuleOfANamespaceConfinesKeysAndChannelsToIt() {
    String rule = Permissions.singleServerRule(Namespace.of("billing"));
    assertThat(rule)
        .startsWith("resetkeys ~billing:warden:* resetchannels &billing:warden:* -@all")
        .isEqualTo(
            Permissions.SINGLE_SERVER_RULE
                .replace("~warden:*", "~billing:warden:*")
                .replace("&warden:*", "&billing:warden:*"));
    assertThat(Permissions.singleServerRule(Namespace.DEFAULT))
        .isEqualTo(Permissions.SINGLE_SERVER_RULE);
  }
}
