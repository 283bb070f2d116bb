package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LeaseExpiredException;
import dev.warden.Warden;
import dev.warden.spring.boot.WardenAutoConfiguration;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** {@code @WardenLocked} in a real application context against a testkit redis-server. */
@ExtendWith(WardenExtension.class)
class WardenLockedIT {
  record Invoice(String id) {}

  /** Annotated methods; each reports whether the lock it expects is held while it runs. */
  public static class Invoices {
    final List<String> events;
    final ObjectProvider<Warden> warden;
    final AtomicInteger runs = new AtomicInteger();

    Invoices(RecordingTransactionManager transactions, ObjectProvider<Warden> warden) {
      this.events = transactions.events;
      this.warden = warden;
    }

    int runs() {
      return runs.get();
    }

    boolean held(String name) {
      return warden.getObject().lock(name).isHeldByCurrentThread();
    }

    @WardenLocked(name = "invoice", key = "#invoice.id")
    @Transactional
    public void charge(Invoice invoice, boolean fail) {
      String name = "invoice:" + invoice.id();
      events.add("charge held=" + held(name));
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              events.add("afterCommit held=" + held(name));
            }

            @Override
            public void afterCompletion(int status) {
              events.add("afterCompletion held=" + held(name));
            }
          });
      if (fail) {
        throw new IllegalStateException("card declined");
      }
    }

    @WardenLocked(key = "#order.id")
    public boolean byParameterName(Invoice order) {
      return held(order.id());
    }

    @WardenLocked(name = "pair", key = "#p1")
    public boolean byIndex(String first, String second) {
      return held("pair:" + second);
    }

    @WardenLocked(key = "'invoice-' + #a0")
    public boolean byExpression(int id) {
      return held("invoice-" + id);
    }

    @WardenLocked(name = "${test.lock-prefix}", key = "#p0")
    public boolean byPlaceholder(String id) {
      return held("tenant-a:" + id);
    }

    @WardenLocked(name = "nightly-report")
    public boolean byName() {
      return held("nightly-report");
    }

    @WardenLocked
    public boolean byNothing() {
      return held("Invoices.byNothing");
    }

    @WardenLocked(name = "invoice", key = "#invoice.id", waitTime = "100ms")
    public void chargeWithin100ms(Invoice invoice) {
      runs.incrementAndGet();
    }

    @WardenLocked(name = "skipped", waitTime = "0", onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public Optional<String> skipOptional() {
      runs.incrementAndGet();
      return Optional.of("ran");
    }

    @WardenLocked(name = "skipped", waitTime = "0", onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public String skipNullable() {
      runs.incrementAndGet();
      return "ran";
    }

    @WardenLocked(name = "skipped", waitTime = "0", onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public void skipVoid() {
      runs.incrementAndGet();
    }

    @WardenLocked(name = "outlived", leaseTime = "200ms")
    public void outliveTheLease(RedisServer redis) {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> redis.redis().exists("warden:{outlived}:lock") == 0);
    }

    @WardenLocked(key = "@tenant.prefix() + '-' + #p0")
    public boolean byBean(String id) {
      return held("tenant-a-" + id);
    }

    @WardenLocked(name = "leased", leaseTime = "3s")
    public long leaseLeft(RedisServer redis) {
      return redis.redis().pttl("warden:{leased}:lock");
    }

    @WardenLocked(
        name = "catalog",
        type = WardenLocked.Type.READ,
        waitTime = "0",
        onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public Boolean read() {
      return warden.getObject().readWriteLock("catalog").readLock().isHeldByCurrentThread();
    }

    @WardenLocked(name = "catalog", type = WardenLocked.Type.WRITE)
    public boolean write() {
      return warden.getObject().readWriteLock("catalog").writeLock().isHeldByCurrentThread();
    }

    @WardenLocked(name = "queue", type = WardenLocked.Type.FAIR)
    public boolean fair() {
      return warden.getObject().fairLock("queue").isHeldByCurrentThread();
    }
  }

  /** A bean that keys refer to as {@code @tenant}. */
  public static class Tenant {
    public String prefix() {
      return "tenant-a";
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Application {
    @Bean
    RecordingTransactionManager transactionManager() {
      return new RecordingTransactionManager();
    }

    @Bean
    Invoices invoices(RecordingTransactionManager transactions, ObjectProvider<Warden> warden) {
      return new Invoices(transactions, warden);
    }

    @Bean
    Tenant tenant() {
      return new Tenant();
    }
  }

  private static ApplicationContextRunner runner(RedisServer redis) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
        .withUserConfiguration(Application.class)
        .withPropertyValues("warden.uri=" + redis.uri(), "test.lock-prefix=tenant-a");
  }

  @Test
  void theLockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              RecordingTransactionManager transactions =
                  context.getBean(RecordingTransactionManager.class);
              transactions.held = () -> invoices.held("invoice:42");

              invoices.charge(new Invoice("42"), false);

              assertThat(transactions.events)
                  .containsExactly(
                      "begin held=true",
                      "charge held=true",
                      "commit held=true",
                      "afterCommit held=true",
                      "afterCompletion held=true");
              assertThat(context.getBean(Warden.class).lock("invoice:42").isLocked()).isFalse();
            });
  }

  @Test
  void aRollbackAlsoEndsBeforeTheLockIsReleasedAndTheFailurePropagates(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              RecordingTransactionManager transactions =
                  context.getBean(RecordingTransactionManager.class);
              transactions.held = () -> invoices.held("invoice:43");

              assertThatThrownBy(() -> invoices.charge(new Invoice("43"), true))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessage("card declined");

              assertThat(transactions.events)
                  .containsExactly(
                      "begin held=true",
                      "charge held=true",
                      "rollback held=true",
                      "afterCompletion held=true");
              assertThat(context.getBean(Warden.class).lock("invoice:43").isLocked()).isFalse();
            });
  }

  @Test
  void theLockNameComesFromTheNameAndTheSpelKey(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              assertThat(invoices.byParameterName(new Invoice("o-1"))).isTrue();
              assertThat(invoices.byIndex("x", "y")).isTrue();
              assertThat(invoices.byExpression(7)).isTrue();
              assertThat(invoices.byPlaceholder("9")).isTrue();
              assertThat(invoices.byName()).isTrue();
              assertThat(invoices.byNothing()).isTrue();
              assertThat(invoices.byBean("3")).isTrue();
              assertThat(invoices.held("o-1")).isFalse();
            });
  }

  @Test
  void aLockHeldElsewhereMakesTheCallThrowNamingTheLockWithoutRunningIt(
      RedisServer redis, Warden other) {
    DistributedLock held = other.lock("invoice:7");
    held.lock();
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              assertThatThrownBy(() -> invoices.chargeWithin100ms(new Invoice("7")))
                  .isInstanceOf(LockNotAcquiredException.class)
                  .hasMessageContaining("\"invoice:7\"")
                  .hasMessageContaining("Invoices.chargeWithin100ms(Invoice)")
                  .extracting(e -> ((LockNotAcquiredException) e).getLockName())
                  .isEqualTo("invoice:7");
              assertThat(invoices.runs()).isEqualTo(0);

              held.unlock();
              invoices.chargeWithin100ms(new Invoice("7"));
              assertThat(invoices.runs()).isEqualTo(1);
            });
  }

  @Test
  void skipReturnsEmptyOrNullWithoutRunningTheMethod(RedisServer redis, Warden other) {
    DistributedLock held = other.lock("skipped");
    held.lock();
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              assertThat(invoices.skipOptional()).isEmpty();
              assertThat(invoices.skipNullable()).isNull();
              invoices.skipVoid();
              assertThat(invoices.runs()).isEqualTo(0);

              held.unlock();
              assertThat(invoices.skipOptional()).contains("ran");
              assertThat(invoices.runs()).isEqualTo(1);
            });
  }

  @Test
  void aLeaseLostWhileTheMethodRanMakesTheCallThrowAfterIt(RedisServer redis) {
    runner(redis)
        .run(
            context ->
                assertThatThrownBy(() -> context.getBean(Invoices.class).outliveTheLease(redis))
                    .isInstanceOf(LeaseExpiredException.class)
                    .hasMessageContaining("outlived"));
  }

  @Test
  void aLeaseTimeGivesAFixedLease(RedisServer redis) {
    runner(redis)
        .run(
            context ->
                assertThat(context.getBean(Invoices.class).leaseLeft(redis)).isBetween(1L, 3000L));
  }

  @Test
  void readWriteAndFairTypesTakeThoseLocks(RedisServer redis, Warden other) {
    runner(redis)
        .run(
            context -> {
              Invoices invoices = context.getBean(Invoices.class);
              assertThat(invoices.write()).isTrue();
              assertThat(invoices.fair()).isTrue();

              DistributedLock otherReader = other.readWriteLock("catalog").readLock();
              otherReader.lock();
              assertThat(invoices.read()).isTrue(); // shared with the other reader
              otherReader.unlock();

              DistributedLock otherWriter = other.readWriteLock("catalog").writeLock();
              otherWriter.lock();
              assertThat(invoices.read()).isNull(); // skipped: the writer excludes readers
              otherWriter.unlock();
            });
  }

  @Test
  void aKeyThatDoesNotEvaluateNamesTheMethodAndTheExpression(RedisServer redis) {
    runner(redis)
        .run(
            context ->
                assertThatThrownBy(() -> context.getBean(Invoices.class).byParameterName(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(
                        "@WardenLocked key \"#order.id\" on Invoices.byParameterName(Invoice)"));
  }

  /** A key that does not parse. */
  public static class BadKey {
    @WardenLocked(key = "#order.(")
    public void run(Invoice order) {}
  }

  /** SKIP cannot return an int. */
  public static class PrimitiveSkip {
    @WardenLocked(name = "n", waitTime = "0", onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public int run() {
      return 1;
    }
  }

  /** A plain Future says nothing when it completes: the lock could not follow its work. */
  public static class AsyncResult {
    @WardenLocked(name = "n")
    public Future<String> run() {
      return CompletableFuture.completedFuture("x");
    }
  }

  /** Not a duration. */
  public static class BadDuration {
    @WardenLocked(name = "n", waitTime = "soon")
    public void run() {}
  }

  @Test
  void wrongAttributesFailTheStartNamingTheMethod(RedisServer redis) {
    assertStartFails(redis, BadKey.class, "BadKey.run(Invoice): key \"#order.(\" does not parse");
    assertStartFails(
        redis,
        PrimitiveSkip.class,
        "PrimitiveSkip.run(): onNotAcquired = SKIP cannot return a int");
    assertStartFails(
        redis, AsyncResult.class, "AsyncResult.run(): returns java.util.concurrent.Future");
    assertStartFails(redis, BadDuration.class, "BadDuration.run(): waitTime is not a duration");
  }

  private static void assertStartFails(RedisServer redis, Class<?> bean, String message) {
    runner(redis)
        .withBean(bean)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("IllegalStateException: @WardenLocked on " + message);
            });
  }
}
