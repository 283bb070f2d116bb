package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DeploymentReport.Status;
import dev.warden.WakeUps;
import dev.warden.internal.redis.Capabilities.WakeUpsVerdict;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Who publishes wake-ups, as the capability check decides it from what the server said to PUBLISH
 * from a script and from the client. A real server that refuses PUBLISH in scripts only cannot be
 * made here (an ACL rule cannot tell a script from its client, and renaming PUBLISH hits both), so
 * the decision is fed the refusals such proxies give; ClientWakeUpsIT runs the chosen mode on a
 * real server.
 */
class CapabilitiesTest {
  /** What a proxy that allows no pub/sub in Lua answers (Alibaba's proxy mode words it so). */
  private static final String PROXY =
      "ERR command 'publish' not allowed from script, pub/sub is not supported in lua";

  private static final String NOPERM =
      "NOPERM User app has no permissions to run the 'publish' command";

  private static final String RULE = "give the user the ACL rule of docs/security.md";

  @Test
  void autoLetsTheScriptsPublishWhereTheyMay() {
    WakeUpsVerdict verdict = Capabilities.wakeUps(WakeUps.AUTO, false, null, null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_SCRIPTS);
    assertThat(verdict.check().toString()).isEqualTo("PUBLISH from a script: ok");
  }

  @Test
  void autoFallsBackToTheClientWhereScriptsMayNotPublishAndSaysWhy() {
    WakeUpsVerdict verdict = Capabilities.wakeUps(WakeUps.AUTO, false, PROXY, null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_CLIENT);
    assertThat(verdict.check().status()).isEqualTo(Status.OK);
    assertThat(verdict.check().toString())
        .isEqualTo(
            "PUBLISH from the client (wake-ups), as PUBLISH from a script is refused: "
                + PROXY
                + ": ok");
  }

  @Test
  void anyErrorToPublishFromAScriptIsARefusalSoAutoFallsBackToTheClient() {
    // worded in none of the ways the other checks know (a proxy's own words, here those of
    // Alibaba's cluster proxy for another check): still a refusal, since the probe's PUBLISH has
    // no argument a server could find wrong. Before, AUTO took it for "allowed".
    String odd =
        "ERR bad lua script for redis cluster, all the keys that the script uses should be passed"
            + " using the KEYS array";
    Map<String, String> failed = Map.of("publish", odd, "incrby", "ERR value is not an integer");
    assertThat(Capabilities.publishRefusal(failed, false)).isEqualTo(odd);
    assertThat(Capabilities.publishRefusal(Map.of("spublish", odd), true)).isEqualTo(odd);
    assertThat(Capabilities.publishRefusal(Map.of("incrby", odd), false)).isNull();
    WakeUpsVerdict verdict =
        Capabilities.wakeUps(
            WakeUps.AUTO, false, Capabilities.publishRefusal(failed, false), null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_CLIENT);
    assertThat(
            Capabilities.wakeUps(
                    WakeUps.FROM_SCRIPTS,
                    false,
                    Capabilities.publishRefusal(failed, false),
                    null,
                    RULE)
                .check()
                .status())
        .isEqualTo(Status.REFUSED);
  }

  @Test
  void onAClusterItIsSpublish() {
    WakeUpsVerdict verdict =
        Capabilities.wakeUps(WakeUps.AUTO, true, PROXY.replace("publish", "spublish"), null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_CLIENT);
    assertThat(verdict.check().name()).startsWith("SPUBLISH from the client (wake-ups)");
  }

  @Test
  void autoRefusesWhenNeitherMayPublishNamingBoth() {
    String client = "ERR unknown command 'publish'";
    WakeUpsVerdict verdict = Capabilities.wakeUps(WakeUps.AUTO, false, PROXY, client, RULE);
    assertThat(verdict.check().status()).isEqualTo(Status.REFUSED);
    assertThat(verdict.check().toString())
        .isEqualTo(
            "PUBLISH from a script: refused (the server said: "
                + PROXY
                + "); this deployment refuses PUBLISH in scripts, and to the client ("
                + client
                + "): waiters could not be woken");
  }

  @Test
  void anAclRefusalNamesTheRuleWhateverTheMode() {
    assertThat(Capabilities.wakeUps(WakeUps.AUTO, false, NOPERM, NOPERM, RULE).check().toString())
        .endsWith("); " + RULE + " (it has +publish)")
        .contains("refused");
    assertThat(
            Capabilities.wakeUps(WakeUps.FROM_CLIENT, false, null, NOPERM, RULE).check().toString())
        .isEqualTo(
            "PUBLISH from the client (wake-ups): refused (the server said: "
                + NOPERM
                + "); "
                + RULE
                + " (it has +publish)");
  }

  @Test
  void fromScriptsAskedForIsRefusedThereAndPointsToTheClientMode() {
    WakeUpsVerdict verdict = Capabilities.wakeUps(WakeUps.FROM_SCRIPTS, false, PROXY, null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_SCRIPTS);
    assertThat(verdict.check().status()).isEqualTo(Status.REFUSED);
    assertThat(verdict.check().fix())
        .isEqualTo(
            "this deployment refuses PUBLISH in scripts and allows it to clients: use"
                + " WakeUps.AUTO or WakeUps.FROM_CLIENT (the client publishes each wake-up after"
                + " its script)");
  }

  @Test
  void fromClientAskedForIgnoresTheScriptsAndChecksTheClient() {
    WakeUpsVerdict verdict = Capabilities.wakeUps(WakeUps.FROM_CLIENT, false, PROXY, null, RULE);
    assertThat(verdict.chosen()).isEqualTo(WakeUps.FROM_CLIENT);
    assertThat(verdict.check().toString()).isEqualTo("PUBLISH from the client (wake-ups): ok");
  }
}
