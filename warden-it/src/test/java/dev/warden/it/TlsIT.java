package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.TlsOptions;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS against a redis-server with {@code --tls-port}, certificates made at run time: the server
 * verified with a given CA and host name, mutual TLS, and a clear error for each way a handshake
 * fails.
 */
class TlsIT {
  @TempDir static Path files;
  private static TestCertificates.Issued ca;
  private static TestCertificates.Issued client;
  private static TestCertificates.Issued strangerCa;
  private static TestCertificates.Issued strangerClient;
  private static RedisServer mutual; // asks clients for a certificate
  private static RedisServer misnamed; // its certificate names another host

  @BeforeAll
  static void startServers() throws Exception {
    TestCertificates certificates = TestCertificates.in(files);
    ca = certificates.authority("warden-test-ca");
    strangerCa = certificates.authority("stranger-ca");
    TestCertificates.Issued server = certificates.issue(ca, "server", "IP:127.0.0.1");
    TestCertificates.Issued elsewhere = certificates.issue(ca, "elsewhere", "DNS:other.example");
    client = certificates.issue(ca, "client", "DNS:client.example");
    strangerClient = certificates.issue(strangerCa, "stranger", "DNS:client.example");
    mutual =
        RedisServer.startWithTls(
            server.certificate(),
            server.key(),
            ca.certificate(),
            /* requireClientCertificates= */ true);
    misnamed =
        RedisServer.startWithTls(elsewhere.certificate(), elsewhere.key(), ca.certificate(), false);
  }

  @AfterAll
  static void stopServers() {
    if (mutual != null) {
      mutual.close();
    }
    if (misnamed != null) {
      misnamed.close();
    }
  }

  private static Warden connect(String uri, TlsOptions tls) {
    return Warden.builder().uri(uri).tls(tls).commandTimeout(Duration.ofSeconds(5)).build();
  }

  @Test
  void mutualTlsWithTheGivenCaLocksAndUnlocks() {
    TlsOptions tls =
        TlsOptions.builder()
            .trustCertificates(ca.certificate())
            .clientCertificate(client.certificate(), client.key())
            .build();
    try (Warden warden = connect(mutual.tlsUri(), tls)) {
      DistributedLock lock = warden.lock("over-tls");
      assertThat(lock.tryLock()).isTrue();
      assertThat(mutual.redis().exists("warden:{over-tls}:lock")).isEqualTo(1);
      lock.unlock();
    }
  }

  @Test
  void aPlainRedisUriWithTlsOptionsStillUsesTls() {
    String plainSchemeToTlsPort = mutual.tlsUri().replace("rediss://", "redis://");
    TlsOptions tls =
        TlsOptions.builder()
            .trustCertificates(ca.certificate())
            .clientCertificate(client.certificate(), client.key())
            .build();
    try (Warden warden = connect(plainSchemeToTlsPort, tls)) {
      assertThat(warden.lock("plain-scheme").tryLock()).isTrue();
    }
  }

  @Test
  void aServerCertificateOfAnotherCaIsNotTrusted() {
    TlsOptions tls =
        TlsOptions.builder()
            .trustCertificates(strangerCa.certificate())
            .clientCertificate(client.certificate(), client.key())
            .build();
    assertThatThrownBy(() -> connect(mutual.tlsUri(), tls))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("cannot connect to Redis at")
        .hasMessageContaining("server's certificate is not trusted");
  }

  @Test
  void aRedissUriWithoutOptionsChecksTheJvmTrustStore() {
    assertThatThrownBy(() -> Warden.connect(mutual.tlsUri()))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("server's certificate is not trusted");
  }

  @Test
  void aServerCertificateForAnotherHostIsRefused() {
    TlsOptions tls = TlsOptions.builder().trustCertificates(ca.certificate()).build();
    assertThatThrownBy(() -> connect(misnamed.tlsUri(), tls))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("does not name the host");
  }

  @Test
  void aMissingOrUnknownClientCertificateIsReportedAsRefused() {
    TlsOptions none = TlsOptions.builder().trustCertificates(ca.certificate()).build();
    assertThatThrownBy(() -> connect(mutual.tlsUri(), none))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("refused this client's certificate");
    TlsOptions stranger =
        TlsOptions.builder()
            .trustCertificates(ca.certificate())
            .clientCertificate(strangerClient.certificate(), strangerClient.key())
            .build();
    assertThatThrownBy(() -> connect(mutual.tlsUri(), stranger))
        .isInstanceOf(WardenException.class)
        .hasMessageContaining("refused this client's certificate");
  }

  @Test
  void unreadableFilesAreRejectedNamingTheArgument() {
    Path missing = files.resolve("missing.crt");
    assertThatThrownBy(() -> TlsOptions.builder().trustCertificates(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("caCertificates must be a readable file: " + missing);
    assertThatThrownBy(() -> TlsOptions.builder().clientCertificate(client.certificate(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("privateKey must be a readable file: null");
    assertThatThrownBy(() -> Warden.builder().tls(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tls must not be null");
  }
}
