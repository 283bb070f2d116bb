package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class TlsFailuresTest {
  @Test
  void aHandshakeFailureAmongTheSuppressedFailuresOfAClusterConnectIsExplained() {
    // What a cluster client throws: each seed's failure is suppressed, not a cause.
    RedisException partitions = new RedisException("Cannot retrieve cluster partitions from [...]");
    partitions.addSuppressed(
        new RedisConnectionException(
            "Unable to connect to 127.0.0.1:7000",
            new SSLHandshakeException(
                "PKIX path building failed: unable to find valid certification path")));

    assertThat(TlsFailures.explain(partitions))
        .startsWith("TLS failed: the server's certificate is not trusted");
  }

  @Test
  void aFailureWithNoTlsCauseIsNotExplained() {
    RedisException refused = new RedisException("Cannot retrieve cluster partitions from [...]");
    refused.addSuppressed(new RedisConnectionException("Connection refused"));

    assertThat(TlsFailures.explain(refused)).isNull();
  }
}
