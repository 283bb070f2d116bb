package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The refusals Redis 7.0 and Valkey 8.0 send, as they word them (captured from the servers; {@code
 * AclIT} checks them against both on every run of the matrix).
 */
class PermissionsTest {
  @Test
  void bothServersWordingsOfARefusedCommandKeyOrScriptCallAreRefusals() {
    assertThat(
            Permissions.isRefusal(
                "NOPERM this user has no permissions to run the 'client|setname' command"))
        .isTrue();
    assertThat(
            Permissions.isRefusal(
                "NOPERM User app has no permissions to run the 'client|setname' command"))
        .isTrue();
    assertThat(
            Permissions.isRefusal(
                "NOPERM this user has no permissions to access one of the keys used as arguments"))
        .isTrue();
    assertThat(Permissions.isRefusal("NOPERM No permissions to access a key")).isTrue();
    assertThat(
            Permissions.isRefusal(
                "ERR The user executing the script can't run this command or subcommand script:"
                    + " b0e7bb, on @user_script:1."))
        .isTrue();
    assertThat(
            Permissions.isRefusal(
                "ERR ACL failure in script: User app has no permissions to run the 'set' command"
                    + " script: b0e7bb, on @user_script:1."))
        .isTrue();
  }

  @Test
  void otherErrorsAreNotRefusals() {
    assertThat(Permissions.isRefusal(null)).isFalse();
    assertThat(Permissions.isRefusal("ERR unknown subcommand 'SETINFO'. Try CLIENT HELP."))
        .isFalse();
    assertThat(Permissions.isRefusal("WRONGPASS invalid username-password pair")).isFalse();
    assertThat(
            Permissions.isRefusal("ERR user_script:1: Script attempted to access a non local key"))
        .isFalse();
  }

  @Test
  void theExplanationQuotesTheServerAndGivesTheRules() {
    String explained =
        Permissions.explain("NOPERM User app has no permissions to run the 'time' command ");
    assertThat(explained)
        .contains("(the server said: NOPERM User app has no permissions to run the 'time' command)")
        .contains(Permissions.SINGLE_SERVER_RULE)
        .contains(Permissions.SENTINEL_EXTRA)
        .contains(Permissions.CLUSTER_EXTRA);
  }
}
