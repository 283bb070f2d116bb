package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FailuresTest {
  private static RedisConnectionException unableToConnect(Throwable cause) {
    return new RedisConnectionException("Unable to connect to 127.0.0.1/<unresolved>:6379", cause);
  }

  @Test
  void aHandshakeWhoseReplyLettuceLostIsToldApartFromARefusal() {
    assertThat(
            Failures.isHandshakeCauseLost(
                unableToConnect(new RedisConnectionException("Connection closed prematurely"))))
        .isTrue();
    assertThat(
            Failures.isHandshakeCauseLost(
                new CompletionException(
                    unableToConnect(
                        new IllegalStateException("RedisHandshakeHandler not registered")))))
        .isTrue();
    assertThat(
            Failures.isHandshakeCauseLost(
                unableToConnect(
                    new RedisCommandExecutionException(
                        "WRONGPASS invalid username-password pair or user is disabled."))))
        .isFalse();
    assertThat(Failures.isHandshakeCauseLost(new IllegalStateException("something else")))
        .isFalse();
  }
}
