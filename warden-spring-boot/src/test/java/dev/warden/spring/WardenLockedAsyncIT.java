package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.spring.boot.WardenAutoConfiguration;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @WardenLocked} on methods returning {@code CompletableFuture}, {@code CompletionStage},
 * {@code Mono} and {@code Flux}, in a real context against a testkit redis-server: the lock is held
 * until the returned work completes, fails or is cancelled, and calls exclude each other (an exact
 * counter, one inside at a time), whatever thread runs them.
 */
@ExtendWith(WardenExtension.class)
class WardenLockedAsyncIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  /** Annotated asynchronous methods over one shared counter. */
  public static class Counter {
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger mostInside = new AtomicInteger();
    int value; // guarded by the lock "counter"

    /** Read through the proxy: the target's fields. */
    public int value() {
      return value;
    }

    public int mostInside() {
      return mostInside.get();
    }

    private int enter() {
      mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
      return value;
    }

    private int leave(int read) {
      value = read + 1;
      inside.decrementAndGet();
      return value;
    }

    @WardenLocked(name = "counter")
    public CompletableFuture<Integer> future() {
      int read = enter();
      return CompletableFuture.supplyAsync(
          () -> leave(read), CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
    }

    @WardenLocked(name = "counter", leaseTime = "10s")
    public CompletionStage<Integer> stage() {
      return future();
    }

    @WardenLocked(name = "counter")
    public Mono<Integer> mono() {
      return Mono.fromCallable(this::enter).delayElement(Duration.ofMillis(2)).map(this::leave);
    }

    @WardenLocked(name = "counter")
    public Flux<Integer> flux() {
      return mono().flux().concatWith(Flux.just(-1));
    }

    @WardenLocked(name = "failing")
    public CompletableFuture<String> failingFuture() {
      return CompletableFuture.failedFuture(new IllegalStateException("declined"));
    }

    @WardenLocked(name = "failing")
    public Mono<String> failingMono() {
      return Mono.error(new IllegalStateException("declined"));
    }

    @WardenLocked(name = "endless")
    public CompletableFuture<String> endlessFuture() {
      return new CompletableFuture<>();
    }

    @WardenLocked(name = "endless")
    public Flux<String> endlessFlux() {
      return Flux.never();
    }

    @WardenLocked(name = "busy", waitTime = "0", onNotAcquired = WardenLocked.NotAcquired.SKIP)
    public Mono<String> skippedMono() {
      return Mono.just("ran");
    }

    @WardenLocked(name = "busy", waitTime = "100ms")
    public CompletableFuture<String> refusedFuture() {
      return CompletableFuture.completedFuture("ran");
    }
  }

  private static ApplicationContextRunner runner(RedisServer redis) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
        .withBean(Counter.class)
        .withPropertyValues("warden.uri=" + redis.uri());
  }

  private static boolean held(Warden observer, String name) {
    return observer.inspect(name).isLocked();
  }

  @Test
  void concurrentFutureMonoAndFluxCallsExcludeEachOtherUntilTheirWorkCompletes(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              Counter counter = context.getBean(Counter.class);
              List<CompletableFuture<?>> calls = new ArrayList<>();
              for (int i = 0; i < 20; i++) {
                calls.add(counter.future());
                calls.add(counter.stage().toCompletableFuture());
                calls.add(counter.mono().toFuture());
                calls.add(counter.flux().collectList().toFuture());
              }
              CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
                  .get(BOUND.toSeconds(), TimeUnit.SECONDS);

              assertThat(counter.value()).isEqualTo(80);
              assertThat(counter.mostInside()).isEqualTo(1);
            });
  }

  @Test
  void aFailingFutureOrMonoReleasesTheLockAndPassesTheFailureOn(
      RedisServer redis, Warden observer) {
    runner(redis)
        .run(
            context -> {
              Counter counter = context.getBean(Counter.class);
              assertThatThrownBy(() -> counter.failingFuture().get())
                  .isInstanceOf(ExecutionException.class)
                  .hasRootCauseMessage("declined");
              assertThatThrownBy(() -> counter.failingMono().block(BOUND)).hasMessage("declined");
              assertThat(held(observer, "failing")).isFalse();
            });
  }

  @Test
  void cancellingTheReturnedFutureOrPublisherReleasesTheLock(RedisServer redis, Warden observer) {
    runner(redis)
        .run(
            context -> {
              Counter counter = context.getBean(Counter.class);
              CompletableFuture<String> endless = counter.endlessFuture();
              await().atMost(BOUND).until(() -> held(observer, "endless"));
              endless.cancel(true);
              await().atMost(BOUND).until(() -> !held(observer, "endless"));

              Disposable subscription = counter.endlessFlux().subscribe();
              await().atMost(BOUND).until(() -> held(observer, "endless"));
              subscription.dispose();
              await().atMost(BOUND).until(() -> !held(observer, "endless"));
            });
  }

  @Test
  void aLockHeldElsewhereSkipsAMonoAndRefusesAFuture(RedisServer redis, Warden observer)
      throws Exception {
    LockHandle elsewhere = observer.lock("busy").acquire(Duration.ZERO);
    try {
      runner(redis)
          .run(
              context -> {
                Counter counter = context.getBean(Counter.class);
                assertThat(counter.skippedMono().blockOptional(BOUND)).isEmpty();
                assertThatThrownBy(() -> counter.refusedFuture().get())
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("lock \"busy\" of Counter.refusedFuture()");
              });
    } finally {
      elsewhere.close();
    }
  }
}
