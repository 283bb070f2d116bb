package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenAcl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * A password, in the URI or refused by Redis, never appears in an exception (message, causes and
 * stack trace), a log line, or the {@code toString} of anything Warden hands out.
 */
class SecretsIT {
  private static final String PASSWORD = "S3cr3t-pa55-8f1e2d";

  @Test
  void malformedUrisAreRejectedWithoutQuotingThePassword() {
    assertWithoutPassword(catchThrowable(() -> Warden.connect(uri(":", 6379) + "/abc")));
    assertWithoutPassword(catchThrowable(() -> Warden.connect(uri("app:", 6379) + "/abc")));
    assertWithoutPassword(
        catchThrowable(() -> Warden.connect("redis://:" + PASSWORD + "@127.0.0.1:port")));
    assertWithoutPassword(
        catchThrowable(
            () -> Warden.connect("redis-sentinel://:" + PASSWORD + "@127.0.0.1:1/abc#m")));
    assertWithoutPassword(
        catchThrowable(() -> Warden.builder().cluster(uri(":", 7000) + "/abc").build()));
    assertWithoutPassword(
        catchThrowable(
            () ->
                Warden.builder()
                    .cluster("redis-sentinel://:" + PASSWORD + "@127.0.0.1:1#m")
                    .build()));
  }

  @Test
  void anUnreachableServerIsReportedWithoutThePassword() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    int free = port;
    Throwable failure = catchThrowable(() -> Warden.connect(uri(":", free)));
    assertThat(failure).hasMessageContaining("cannot connect").hasMessageContaining("***@");
    assertWithoutPassword(failure);
    assertWithoutPassword(catchThrowable(() -> Warden.builder().cluster(uri(":", free)).build()));
  }

  @Test
  void aRefusedPasswordIsReportedWithoutIt() {
    try (RedisServer redis = RedisServer.start()) {
      WardenAcl.createUser(redis, "app", "the-right-one", "~* &* +@all");
      Throwable failure = catchThrowable(() -> Warden.connect(uri("app:", redis.port())));
      assertThat(failure).hasMessageContaining("WRONGPASS");
      assertWithoutPassword(failure);
    }
  }

  @Test
  void aWorkingWardenShowsThePasswordNowhere() throws Throwable {
    try (RedisServer redis = RedisServer.start()) {
      WardenAcl.createUser(redis, "app", PASSWORD, "~* &* +@all");
      String output =
          captured(
              text -> {
                try (Warden warden =
                    Warden.builder()
                        .uri(uri("app:", redis.port()))
                        .commandTimeout(Duration.ofMillis(500))
                        .build()) {
                  DistributedLock lock = warden.lock("secret-lock");
                  LockHandle handle = lock.acquire(Duration.ofSeconds(5));
                  text.append(lock).append(handle);
                  text.append(warden.stats()).append(warden.activity());
                  text.append(warden.inspect("secret-lock"));
                  text.append(warden.semaphore("s")).append(warden.countDownLatch("c"));
                  handle.close();
                  redis.redis().set("warden:{wrong}:lock", "x");
                  text.append(describe(catchThrowable(() -> warden.lock("wrong").tryLock())));
                  redis.restart(); // forgets the user: reconnection attempts are refused
                  text.append(describe(catchThrowable(lock::tryLock)));
                  redis.kill(); // reconnection attempts fail: logged, and calls fail
                  text.append(describe(catchThrowable(lock::tryLock)));
                  text.append(describe(catchThrowable(() -> lock.acquire(Duration.ZERO))));
                }
              });
      assertThat(output).contains("wrong").doesNotContain(PASSWORD);
    }
  }

  private static String uri(String userInfoPrefix, int port) {
    return "redis://" + userInfoPrefix + PASSWORD + "@127.0.0.1:" + port;
  }

  /** Runs the action with System.out and System.err captured; returns all it wrote and added. */
  static String captured(ThrowingConsumer<StringBuilder> action) throws Throwable {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringBuilder text = new StringBuilder();
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      System.setErr(capture);
      try {
        action.accept(text);
      } finally {
        System.setOut(out);
        System.setErr(err);
      }
    }
    return text + bytes.toString(StandardCharsets.UTF_8);
  }

  private static void assertWithoutPassword(Throwable failure) {
    assertThat(failure).isNotNull();
    assertThat(describe(failure)).doesNotContain(PASSWORD);
  }

  /** The message, the causes and the stack trace, as printStackTrace shows them. */
  static String describe(Throwable failure) {
    if (failure == null) {
      return "";
    }
    StringWriter trace = new StringWriter();
    failure.printStackTrace(new PrintWriter(trace));
    return failure + "\n" + trace;
  }
}
