package dev.warden.spring.boot;

import dev.warden.TlsOptions;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;

/** Turns a Spring Boot SSL bundle into Warden's {@link TlsOptions}. */
final class SslBundleTls {
  private SslBundleTls() {}

  /**
   * Returns TLS options with the bundle's trust managers (which verify the server), key managers
   * (the client's certificate, if the bundle has a key store) and enabled protocols and ciphers.
   * Warden always verifies the server's host name, whatever the bundle says.
   */
  static TlsOptions of(SslBundle bundle) {
    SslManagerBundle managers = bundle.getManagers();
    TlsOptions.Builder tls =
        TlsOptions.builder()
            .trustManager(managers.getTrustManagerFactory())
            .keyManager(managers.getKeyManagerFactory());
    SslOptions options = bundle.getOptions();
    if (options.getEnabledProtocols() != null) {
      tls.protocols(options.getEnabledProtocols());
    }
    if (options.getCiphers() != null) {
      tls.cipherSuites(options.getCiphers());
    }
    return tls.build();
  }
}
