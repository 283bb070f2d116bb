package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DeploymentReport;
import dev.warden.DeploymentReport.Status;
import dev.warden.Replication;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The capability check at connect ({@code build()} and {@code Warden.Builder.check()}): an ACL user
 * denied each capability in turn gets a {@link WardenException} at build that names the missing
 * piece, with the server's words and the rule; the full rule passes every check. Runs on both
 * servers of the matrix.
 */
class CapabilitiesIT {
  private static final String PASSWORD = "capabilities-pw";
  private static RedisServer redis;

  @BeforeAll
  static void startServer() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @Test
  void theDocumentedRulePassesEveryCheckWithoutAnAclLogEntry() {
    redis.redis().aclLogReset();
    WardenAcl.createUser(redis, "full", PASSWORD, WardenAcl.SINGLE_SERVER);
    DeploymentReport report =
        Warden.builder()
            .uri(uri("full"))
            .replication(Replication.awaitReplicas(1, Duration.ofMillis(50)))
            .check();
    assertThat(report.checks())
        .extracting(DeploymentReport.Check::name)
        .containsExactly(
            "scripts (EVALSHA, EVAL)",
            "TIME from a script",
            "PUBLISH from a script",
            "the commands of Warden's scripts",
            "SUBSCRIBE (wake-ups)",
            "WAIT (the replication policy)",
            "one writable master (INFO replication)",
            "on-Redis data format");
    assertThat(report.refused()).isEmpty();
    assertThat(report.checks()).allMatch(check -> check.status() == Status.OK);
    assertThat(report.toString()).doesNotContain(PASSWORD);
    assertThat(redis.redis().aclLog()).as("nothing refused").isEmpty();
    assertThat(redis.redis().keys("warden:{warden-probe}*"))
        .as("the probe leaves nothing behind")
        .isEmpty();
  }

  @Test
  void aUserDeniedScriptsIsRefusedAtBuildNamingScripts() {
    assertRefusedAtBuild(
        "no-scripts", rule("+evalsha", "+eval"), "scripts (EVALSHA, EVAL): refused", "evalsha");
  }

  @Test
  void aUserDeniedPublishFromAScriptIsRefusedAtBuild() {
    assertRefusedAtBuild(
        "no-publish", rule("+publish"), "PUBLISH from a script: refused", "publish");
  }

  @Test
  void aUserDeniedTimeFromAScriptIsRefusedAtBuild() {
    assertRefusedAtBuild("no-time", rule("+time"), "TIME from a script: refused", "time");
  }

  @Test
  void aUserDeniedACommandOfTheScriptsIsRefusedAtBuildNamingIt() {
    assertRefusedAtBuild(
        "no-zadd", rule("+zadd"), "the commands of Warden's scripts: refused", "zadd");
  }

  @Test
  void aUserDeniedPubsubNumsubIsRefusedAtBuildNamingIt() {
    // a release that nominates a client asks it from its script (prelude.lua's publish_to): without
    // the check, every such release would fail after its writes
    assertRefusedAtBuild(
        "no-numsub",
        rule("+pubsub|numsub"),
        "the commands of Warden's scripts: refused",
        "pubsub|numsub");
  }

  @Test
  void aUserDeniedSubscribeIsRefusedAtBuild() {
    assertRefusedAtBuild(
        "no-subscribe", rule("+subscribe"), "SUBSCRIBE (wake-ups): refused", "subscribe");
  }

  @Test
  void aUserDeniedWaitIsRefusedAtBuildOnlyUnderAReplicationPolicy() {
    WardenAcl.createUser(redis, "no-wait", PASSWORD, rule("+wait"));
    try (Warden warden = Warden.connect(uri("no-wait"))) {
      assertThat(warden.lock("no-wait-fine").tryLock())
          .as("no policy: WAIT is never sent")
          .isTrue();
    }
    assertThatThrownBy(
            () ->
                Warden.builder()
                    .uri(uri("no-wait"))
                    .replication(Replication.requireReplicas(1, Duration.ofMillis(50)))
                    .build())
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("WAIT (the replication policy): refused")
        .hasMessageContaining("'wait'")
        .hasMessageContaining("+wait")
        .hasMessageNotContaining(PASSWORD);
  }

  @Test
  void aUserDeniedInfoIsNotRefusedTheMasterCheckIsReportedAsNotChecked() {
    WardenAcl.createUser(redis, "no-info", PASSWORD, rule("+info"));
    DeploymentReport report = Warden.builder().uri(uri("no-info")).check();
    assertThat(report.ok()).as(report.toString()).isTrue();
    assertThat(report.checks())
        .filteredOn(check -> check.status() == Status.NOT_CHECKED)
        .extracting(DeploymentReport.Check::name)
        .containsExactly("one writable master (INFO replication)");
    try (Warden warden = Warden.connect(uri("no-info"))) {
      assertThat(warden.lock("no-info-fine").tryLock()).isTrue();
    }
  }

  @Test
  void aReadOnlyReplicaIsRefusedAtBuildNamingItsRole() {
    try (RedisServer replica = RedisServer.startReplicaOf(redis)) {
      assertThatThrownBy(() -> Warden.connect(replica.uri()))
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("one writable master (INFO replication): refused")
          .hasMessageContaining("role:slave")
          .hasMessageContaining("connect to its master");
    }
  }

  @Test
  void onAClusterAUserDeniedShardedSubscribeOrClusterFromAScriptIsRefusedAtBuild() {
    try (RedisCluster cluster = RedisCluster.start()) {
      String full = WardenAcl.SINGLE_SERVER + " " + WardenAcl.CLUSTER;
      for (RedisServer node : cluster.nodes()) {
        WardenAcl.createUser(node, "no-ssubscribe", PASSWORD, full.replace(" +ssubscribe", ""));
        WardenAcl.createUser(node, "no-myid", PASSWORD, full.replace(" +cluster|myid", ""));
        WardenAcl.createUser(node, "no-info", PASSWORD, full.replace(" +info", ""));
        WardenAcl.createUser(node, "full", PASSWORD, full);
      }
      DeploymentReport report = Warden.builder().cluster(seeds(cluster, "full")).check();
      assertThat(report.refused()).isEmpty();
      assertThat(report.checks())
          .extracting(DeploymentReport.Check::name)
          .contains(
              "SPUBLISH from a script",
              "CLUSTER MYID and CLUSTER INFO from a script",
              "SSUBSCRIBE (wake-ups)");
      assertThatThrownBy(() -> Warden.builder().cluster(seeds(cluster, "no-ssubscribe")).build())
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("SSUBSCRIBE (wake-ups): refused")
          .hasMessageContaining("'ssubscribe'");
      assertThatThrownBy(() -> Warden.builder().cluster(seeds(cluster, "no-myid")).build())
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("CLUSTER MYID and CLUSTER INFO from a script: refused")
          .hasMessageContaining("+cluster|myid")
          .hasMessageNotContaining(PASSWORD);
      // on a cluster every token reads INFO replication (prelude.lua's master_tenure)
      assertThatThrownBy(() -> Warden.builder().cluster(seeds(cluster, "no-info")).build())
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("the commands of Warden's scripts: refused")
          .hasMessageContaining("info: ")
          .hasMessageNotContaining(PASSWORD);
    }
  }

  private static void assertRefusedAtBuild(
      String user, String rule, String refusal, String command) {
    WardenAcl.createUser(redis, user, PASSWORD, rule);
    assertThatThrownBy(() -> Warden.connect(uri(user)))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("cannot use redis://***@" + redis.host() + ":" + redis.port())
        .hasMessageContaining(refusal)
        // the server names the command, except Redis inside a script: then the fix does
        .hasMessageContaining(command)
        .hasMessageContaining("ACL rule of docs/security.md")
        .hasMessageNotContaining(PASSWORD);
  }

  /** The documented single-server rule less some of its words. */
  private static String rule(String... without) {
    String rule = WardenAcl.SINGLE_SERVER;
    for (String word : without) {
      rule = rule.replace(" " + word + " ", " ");
    }
    assertThat(rule).isNotEqualTo(WardenAcl.SINGLE_SERVER);
    return rule;
  }

  private static String uri(String user) {
    return "redis://" + user + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port();
  }

  private static String[] seeds(RedisCluster cluster, String user) {
    List<String> seeds = cluster.seeds();
    return seeds.stream()
        .map(seed -> seed.replace("redis://", "redis://" + user + ":" + PASSWORD + "@"))
        .toArray(String[]::new);
  }
}
