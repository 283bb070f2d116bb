package dev.warden.internal.redis;

import dev.warden.TlsOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;

/** Applies {@link TlsOptions} to Lettuce's URIs and client options. */
final class TlsSetup {
  private TlsSetup() {}

  /**
   * Makes the URI use TLS with full verification (certificate and host name) when options are
   * given; leaves it as it is (TLS if {@code rediss://}) otherwise.
   */
  static RedisURI apply(RedisURI uri, TlsOptions tls) {
    if (tls != null) {
      uri.setSsl(true);
      uri.setVerifyPeer(SslVerifyMode.FULL);
    }
    return uri;
  }

  /** Gives the client the trusted authorities and the client certificate of the options. */
  static <B extends ClientOptions.Builder> B apply(B options, TlsOptions tls) {
    if (tls == null) {
      return options;
    }
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
    tls.trustCertificates().ifPresent(ca -> ssl.trustManager(ca.toFile()));
    tls.trustManager().ifPresent(ssl::trustManager);
    tls.clientCertificate()
        .ifPresent(
            chain -> ssl.keyManager(chain.toFile(), tls.clientKey().orElseThrow().toFile(), null));
    tls.keyManager().ifPresent(ssl::keyManager);
    if (!tls.protocols().isEmpty()) {
      ssl.protocols(tls.protocols().toArray(String[]::new));
    }
    if (!tls.cipherSuites().isEmpty()) {
      ssl.cipherSuites(tls.cipherSuites().toArray(String[]::new));
    }
    options.sslOptions(ssl.build());
    return options;
  }
}
