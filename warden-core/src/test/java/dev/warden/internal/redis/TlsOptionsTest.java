package dev.warden.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.TlsOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/** TLS material given as JSSE factories (as a Spring Boot SSL bundle has it) and its checks. */
class TlsOptionsTest {
  @Test
  void factoriesProtocolsAndCipherSuitesReachLettucesSslOptions() throws Exception {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init((KeyStore) null);
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(null, new char[0]);
    TlsOptions tls =
        TlsOptions.builder()
            .trustManager(trust)
            .keyManager(keys)
            .protocols("TLSv1.3")
            .cipherSuites("TLS_AES_128_GCM_SHA256")
            .build();

    assertThat(tls.trustManager()).containsSame(trust);
    assertThat(tls.keyManager()).containsSame(keys);
    assertThat(tls.trustCertificates()).isEmpty();
    assertThat(tls)
        .hasToString(
            "TlsOptions[trustCertificates=a TrustManagerFactory, clientCertificate=a"
                + " KeyManagerFactory, protocols=[TLSv1.3], cipherSuites=[TLS_AES_128_GCM_SHA256]]");
    SslOptions ssl = TlsSetup.apply(ClientOptions.builder(), tls).build().getSslOptions();
    assertThat(ssl.getProtocols()).containsExactly("TLSv1.3");
    assertThat(ssl.getCipherSuites()).containsExactly("TLS_AES_128_GCM_SHA256");
    assertThat(ssl.createSslContextBuilder().build().isClient()).isTrue();
  }

  @Test
  void withoutProtocolsTheJvmsDefaultsApply() {
    TlsOptions tls = TlsOptions.builder().build();
    assertThat(tls.protocols()).isEmpty();
    assertThat(tls.cipherSuites()).isEmpty();
    assertThat(tls).hasToString("TlsOptions[trustCertificates=null, clientCertificate=null]");
  }

  @Test
  void badArgumentsAreNamed() {
    TlsOptions.Builder builder = TlsOptions.builder();
    assertThatThrownBy(() -> builder.trustManager(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trustManager must not be null");
    assertThatThrownBy(() -> builder.keyManager(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keyManager must not be null");
    assertThatThrownBy(() -> builder.protocols("TLSv1.3", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("protocols must not hold a null or blank name: [TLSv1.3,  ]");
    assertThatThrownBy(() -> builder.cipherSuites((String[]) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cipherSuites must not be null");
  }
}
