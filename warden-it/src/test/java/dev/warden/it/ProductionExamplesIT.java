package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The production examples of docs/operations.md (graceful close, maximum hold time, key prefix,
 * rotating credentials with the application's client resources), run as written on a real
 * redis-server.
 */
@ExtendWith(WardenExtension.class)
class ProductionExamplesIT {
  private static final Path SOURCE =
      Path.of("src/test/java/dev/warden/it/ProductionExamplesIT.java");

  @Test
  void gracefulClose(RedisServer redis, WardenFactory wardens) throws Exception {
    String redisUri = redis.uri();
    Warden other = wardens.create();
    Warden warden = Warden.builder().uri(redisUri).build();
    LockHandle report = warden.lock("nightly-report").acquire(Duration.ZERO);
    CompletableFuture<Void> told = new CompletableFuture<>();
    report.leaseLost().thenRun(() -> told.complete(null));

    // example graceful-close: begin
    // on shutdown: no new acquisitions, waiters fail at once, holders get 2 s to finish;
    // then what is still held is released (owner-checked) and its holder told
    warden.close(Duration.ofSeconds(2));
    // example graceful-close: end

    told.get(1, TimeUnit.SECONDS);
    assertThat(other.lock("nightly-report").tryLock()).as("free now, not after a lease").isTrue();
    assertThatThrownBy(report::close)
        .isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("graceful close");
    DocExamples.assertShown(Path.of("../docs/operations.md"), "graceful-close", SOURCE);
  }

  @Test
  void maxHoldTime(RedisServer redis) throws Exception {
    String redisUri = redis.uri();
    // example max-hold-time: begin
    Warden warden =
        Warden.builder()
            .uri(redisUri)
            .watchdogTimeout(Duration.ofSeconds(10))
            .maxHoldTime(Duration.ofMinutes(5)) // renewed for 5 minutes at most, then lost
            .build();
    // example max-hold-time: end
    try (warden) {
      LockHandle held = warden.lock("export").acquire(Duration.ZERO);
      assertThat(redis.redis().pttl("warden:{export}:lock")).isBetween(1L, 10_000L);
      held.close();
    }
    DocExamples.assertShown(Path.of("../docs/operations.md"), "max-hold-time", SOURCE);
  }

  @Test
  void keyPrefix(RedisServer redis) throws Exception {
    WardenAcl.createUser(redis, "billing", "billing-Secret-1", WardenAcl.singleServer("billing"));
    String redisUri = redis.uri().replace("redis://", "redis://billing:billing-Secret-1@");
    // example key-prefix: begin
    Warden billing = Warden.builder().uri(redisUri).keyPrefix("billing").build();
    // keys: billing:warden:{invoice-42}:lock ...; ACL ~billing:warden:* &billing:warden:*
    // example key-prefix: end
    try (billing) {
      LockHandle held = billing.lock("invoice-42").acquire(Duration.ZERO);
      assertThat(redis.redis().exists("billing:warden:{invoice-42}:lock")).isEqualTo(1);
      held.close();
    }
    DocExamples.assertShown(Path.of("../docs/operations.md"), "key-prefix", SOURCE);
  }

  @Test
  void rotatingCredentials(RedisServer redis) throws Exception {
    WardenAcl.createUser(redis, "app", "first-T0ken", WardenAcl.SINGLE_SERVER);
    String redisUri = redis.uri();
    AtomicReference<String> currentToken = new AtomicReference<>("first-T0ken");
    // example credentials: begin
    RedisCredentialsProvider credentials =
        RedisCredentialsProvider.from(() -> RedisCredentials.just("app", currentToken.get()));
    ClientResources resources = // the application's; Warden neither makes nor shuts them down
        DefaultClientResources.builder()
            .reconnectDelay( // Warden's own choice: reconnect within a second
                Delay.exponential(
                    Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
            .build();
    Warden warden =
        Warden.builder().uri(redisUri).credentials(credentials).clientResources(resources).build();
    // example credentials: end
    try (warden) {
      assertThat(warden.lock("rotated").tryLock()).isTrue();
      warden.lock("rotated").unlock();
    } finally {
      resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    }
    DocExamples.assertShown(Path.of("../docs/operations.md"), "credentials", SOURCE);
  }
}
