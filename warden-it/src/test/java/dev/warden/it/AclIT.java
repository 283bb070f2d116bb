package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.ServerBinary;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege: docs/security.md documents the rule {@link AclContractIT} proves enough, the ACL
 * deployment really runs as the restricted user, and a missing permission is a {@link
 * WardenException} that names what the server refused and the rule that would do, in Redis's
 * wording and in Valkey's (run with {@code -Dwarden.server=valkey}).
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SINGLE_ACL)
class AclIT {
  private static final String PASSWORD = "acl-test-pw";
  private static final boolean VALKEY = ServerBinary.current().isValkey();

  @Test
  void theSecurityGuideQuotesTheRulesTheTestsUse() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "security.md"), StandardCharsets.UTF_8);
    assertThat(guide)
        .contains(WardenAcl.SINGLE_SERVER)
        .contains(WardenAcl.SENTINEL)
        .contains(WardenAcl.CLUSTER);
  }

  @Test
  void theAclDeploymentConnectsAsTheRestrictedUserAndNothingIsRefused(
      RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("acl-probe");
    assertThat(lock.tryLock()).isTrue();
    lock.unlock();
    assertThat(redis.redis().clientList())
        .as("Warden's connections run as the ACL user")
        .containsPattern("name=warden-\\S+ .*user=warden-acl");
    assertThat(redis.redis().aclLog()).as("no command was refused").isEmpty();
  }

  @Test
  void theRuleAReaderWouldGuessFailsAtConnectNamingTheRefusedCommand(RedisServer redis) {
    WardenAcl.createUser(redis, "guess", PASSWORD, "~warden:* &warden:* +@scripting +@pubsub");
    assertThatThrownBy(() -> Warden.connect(uri(redis, "guess")))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("cannot connect to Redis")
        .hasMessageContaining("lacks a permission Warden needs")
        .hasMessageContaining(
            VALKEY
                ? "NOPERM User guess has no permissions to run the 'client|setname' command"
                : "NOPERM this user has no permissions to run the 'client|setname' command")
        .hasMessageContaining(WardenAcl.SINGLE_SERVER)
        .hasMessageNotContaining(PASSWORD);
  }

  @Test
  void aCommandMissingInsideAScriptIsRefusedAtBuildNamingItWithTheRule(RedisServer redis) {
    WardenAcl.createUser(redis, "no-hset", PASSWORD, WardenAcl.SINGLE_SERVER.replace(" +hset", ""));
    assertThatThrownBy(() -> Warden.connect(uri(redis, "no-hset")))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("the commands of Warden's scripts: refused")
        // inside a script Redis names only the script, Valkey the command; the check names it
        .hasMessageContaining(
            VALKEY
                ? "hset: ERR ACL failure in script: User no-hset has no permissions to run the 'hset'"
                : "hset: ERR The user executing the script can't run this command")
        .hasMessageContaining("ACL rule of docs/security.md")
        .hasMessageNotContaining(PASSWORD);
    assertThat(redis.redis().keys("*")).as("nothing was left behind").isEmpty();
  }

  @Test
  void aKeyOutsideTheNamespaceIsRefusedAtBuildWithTheKeyPattern(RedisServer redis) {
    WardenAcl.createUser(
        redis, "other-keys", PASSWORD, WardenAcl.SINGLE_SERVER.replace("~warden:*", "~tenant-a:*"));
    assertThatThrownBy(() -> Warden.connect(uri(redis, "other-keys")))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("scripts (EVALSHA, EVAL): refused")
        .hasMessageContaining(
            VALKEY ? "No permissions to access a key" : "no permissions to access one of the keys")
        .hasMessageContaining("its key pattern ~warden:* covers every key Warden uses");
  }

  private static String uri(RedisServer redis, String user) {
    return "redis://" + user + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port();
  }
}
