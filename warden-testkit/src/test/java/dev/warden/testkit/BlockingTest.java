package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BlockingTest {

  @Test
  void callsInThreadsOfTheirOwnRunAtTheSameTime() throws Exception {
    // each waits for the other: calls run one after another, or on the caller's thread, never end
    CountDownLatch both = new CountDownLatch(2);
    Blocking.Call<String> meet =
        () -> {
          both.countDown();
          assertThat(both.await(20, TimeUnit.SECONDS)).isTrue();
          return Thread.currentThread().getName();
        };
    CompletableFuture<String> first = Blocking.inThread(meet);
    CompletableFuture<String> second = Blocking.inThread(meet);
    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("blocking-call");
    assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("blocking-call");
  }

  @Test
  void aCheckedExceptionOfTheCallIsTheCauseOfTheFailedFuture() {
    CompletableFuture<Object> failed =
        Blocking.inThread(
            () -> {
              throw new IOException("no route");
            });
    assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("no route");
  }

  @Test
  void supplyAndRunUseTheExecutorAndReportCheckedExceptionsAsTheCause() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "given-pool"));
    try {
      CompletableFuture<String> thread =
          Blocking.supply(() -> Thread.currentThread().getName(), pool);
      assertThat(thread.get(10, TimeUnit.SECONDS)).isEqualTo("given-pool");
      CompletableFuture<Void> interrupted =
          Blocking.run(
              () -> {
                throw new InterruptedException("woken");
              },
              pool);
      assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isExactlyInstanceOf(InterruptedException.class)
          .hasMessage("woken");
      CompletableFuture<Void> unchecked =
          Blocking.run(
              () -> {
                throw new IllegalStateException("bad state");
              },
              pool);
      assertThatThrownBy(() -> unchecked.get(10, TimeUnit.SECONDS))
          .cause()
          .isExactlyInstanceOf(IllegalStateException.class);
    } finally {
      pool.shutdownNow();
    }
  }
}
