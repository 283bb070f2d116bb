package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.AclSetuserArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The auto-configured Warden against a real redis-server from the testkit. */
@ExtendWith(WardenExtension.class)
class WardenAutoConfigurationIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DataRedisAutoConfiguration.class, WardenAutoConfiguration.class));

  @Test
  void theWardenReusesSpringDataRedisAndTakesItsLocksThere(RedisServer redis) {
    runner
        .withPropertyValues(
            "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
        .run(
            context -> {
              DistributedLock lock = context.getBean(Warden.class).lock("reused");
              lock.lock();
              try {
                assertThat(redis.redis().exists("warden:{reused}:lock")).isEqualTo(1);
              } finally {
                lock.unlock();
              }
            });
  }

  @Test
  void theWatchdogTimeoutPropertySetsTheLeaseOfRenewedHolds(RedisServer redis) {
    runner
        .withPropertyValues("warden.uri=" + redis.uri(), "warden.watchdog-timeout=2s")
        .run(
            context -> {
              DistributedLock lock = context.getBean(Warden.class).lock("short-lease");
              lock.lock();
              try {
                assertThat(redis.redis().pttl("warden:{short-lease}:lock")).isBetween(1L, 2000L);
              } finally {
                lock.unlock();
              }
            });
  }

  @Test
  void wakeUpsFromClientMakesTheWardenPublishAfterItsScriptsAndAutoLetsTheScriptsPublish(
      RedisServer redis) {
    for (String mode : List.of("from-client", "auto")) {
      runner
          .withPropertyValues("warden.uri=" + redis.uri(), "warden.wake-ups=" + mode)
          .run(
              context -> {
                DistributedLock lock = context.getBean(Warden.class).lock("woken-" + mode);
                lock.lock();
                redis.redis().configSet("slowlog-log-slower-than", "0");
                redis.redis().slowlogReset();
                List<String> commands;
                try {
                  // its script publishes 'released', or records it for the client to publish
                  // (sent behind the reply: it may reach Redis a moment after forceUnlock returns)
                  assertThat(lock.forceUnlock()).isTrue();
                  await().until(() -> scriptsAndPublishes(redis).contains("publish"));
                  commands = scriptsAndPublishes(redis);
                } finally {
                  redis.redis().configSet("slowlog-log-slower-than", "10000");
                }
                // SLOWLOG lists commands as they end: a script's own PUBLISH before the script, the
                // client's after it
                assertThat(commands).as(mode).containsOnlyOnce("publish");
                if (mode.equals("from-client")) {
                  assertThat(commands.get(commands.size() - 1))
                      .as(commands.toString())
                      .isEqualTo("publish");
                } else {
                  assertThat(commands.get(commands.size() - 1))
                      .as(commands.toString())
                      .isIn("evalsha", "eval");
                }
              });
    }
  }

  /** The scripts (EVALSHA, EVAL) and PUBLISHes in SLOWLOG, oldest first, in lower case. */
  private static List<String> scriptsAndPublishes(RedisServer redis) {
    List<String> commands = new ArrayList<>();
    for (Object raw : redis.redis().slowlogGet(100)) {
      String command =
          String.valueOf(((List<?>) ((List<?>) raw).get(3)).get(0)).toLowerCase(Locale.ROOT);
      if (List.of("evalsha", "eval", "publish").contains(command)) {
        commands.add(0, command);
      }
    }
    return commands;
  }

  @Test
  void anApplicationsOwnWardenBeanReplacesTheAutoConfiguredOne(WardenFactory wardens) {
    Warden own = wardens.create();
    runner
        .withPropertyValues("warden.uri=redis://no-such-host.invalid:1")
        .withBean("ownWarden", Warden.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Warden.class);
              assertThat(context.getBean(Warden.class)).isSameAs(own);
              assertThat(context).hasSingleBean(WardenHealthIndicator.class);
            });
  }

  @Test
  void closingTheContextClosesTheWardenItMade(RedisServer redis) {
    String name = "closed-with-context";
    runner
        .withPropertyValues("warden.uri=" + redis.uri())
        .run(
            context -> {
              context.getBean(Warden.class).lock(name).lock();
              assertThat(redis.redis().clientList()).contains("name=warden-");
            });
    // the context's stop closes it gracefully (warden.shutdown.grace): the hold still held after
    // the grace is released, not left to its 30 s lease
    assertThat(redis.redis().exists("warden:{" + name + "}:lock")).isZero();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !redis.redis().clientList().contains("name=warden-"));
  }

  @Test
  void aWrongPasswordFailsTheStartWithoutShowingThePassword(RedisServer redis) {
    redis
        .redis()
        .aclSetuser(
            "app",
            AclSetuserArgs.Builder.on().addPassword("the-right-one").allCommands().allKeys());
    try {
      runner
          .withPropertyValues(
              "warden.uri=redis://app:Hunter2-secret@" + redis.host() + ":" + redis.port())
          .run(
              context -> {
                assertThat(context).hasFailed();
                Throwable failure = context.getStartupFailure();
                StringBuilder messages = new StringBuilder();
                for (Throwable t = failure; t != null; t = t.getCause()) {
                  messages.append(t).append('\n');
                }
                assertThat(messages.toString())
                    .contains("cannot connect to Redis")
                    .doesNotContain("Hunter2-secret");
              });
    } finally {
      redis.redis().aclDeluser("app");
    }
  }

  @Test
  void healthIsUpWithDetailsAndDownOnceRedisIsUnreachable(RedisServer redis) {
    runner
        .withPropertyValues("warden.uri=" + redis.uri(), "warden.command-timeout=500ms")
        .run(
            context -> {
              WardenHealthIndicator indicator =
                  context.getBean("wardenHealthIndicator", WardenHealthIndicator.class);
              DistributedLock lock = context.getBean(Warden.class).lock("held-for-health");
              lock.lock();
              Health up = indicator.health();
              lock.unlock();

              assertThat(up.getStatus()).isEqualTo(Status.UP);
              Map<String, Object> details = up.getDetails();
              assertThat(details)
                  .containsEntry("mode", "standalone")
                  .containsEntry("holds", 1)
                  .containsEntry("renewedHolds", 1)
                  .containsKeys("waiters", "subscriptions", "leaseKeeperRunning", "target");

              redis.kill();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> indicator.health().getStatus().equals(Status.DOWN));
              assertThat(indicator.health().getDetails()).containsKey("error");
            });
  }
}
