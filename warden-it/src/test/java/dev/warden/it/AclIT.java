package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenDeployment;
import dev.warden.testkit.WardenExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege: README documents the rule {@link AclContractIT} proves enough, the ACL
 * deployment really runs as the restricted user, and a missing permission is a {@link
 * WardenException} that names what Redis refused and the rule that would do.
 */
@ExtendWith(WardenExtension.class)
@WardenDeployment(WardenDeployment.Kind.SINGLE_ACL)
class AclIT {
  private static final String PASSWORD = "acl-test-pw";

  @Test
  void theReadmeQuotesTheRulesTheTestsUse() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    assertThat(readme)
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
        .hasMessageContaining("'client|setname'")
        .hasMessageContaining(WardenAcl.SINGLE_SERVER)
        .hasMessageNotContaining(PASSWORD);
  }

  @Test
  void aCommandMissingInsideAScriptIsReportedForTheObjectWithTheRule(RedisServer redis) {
    WardenAcl.createUser(redis, "no-hset", PASSWORD, WardenAcl.SINGLE_SERVER.replace(" +hset", ""));
    try (Warden warden = Warden.connect(uri(redis, "no-hset"))) {
      DistributedLock lock = warden.lock("refused");
      assertThatThrownBy(lock::tryLock)
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("lock 'refused'")
          .hasMessageContaining("can't run this command")
          .hasMessageContaining(WardenAcl.SINGLE_SERVER);
    }
    assertThat(redis.redis().keys("*")).as("nothing was left behind").isEmpty();
  }

  @Test
  void aKeyOutsideTheNamespaceIsRefusedWithTheRule(RedisServer redis) {
    WardenAcl.createUser(
        redis, "other-keys", PASSWORD, WardenAcl.SINGLE_SERVER.replace("~warden:*", "~tenant-a:*"));
    try (Warden warden = Warden.connect(uri(redis, "other-keys"))) {
      assertThatThrownBy(() -> warden.semaphore("refused").availablePermits())
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("semaphore 'refused'")
          .hasMessageContaining("no permissions to access one of the keys")
          .hasMessageContaining("~warden:*");
    }
  }

  private static String uri(RedisServer redis, String user) {
    return "redis://" + user + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port();
  }
}
