package dev.warden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * How Warden's connections use TLS: which certificate authorities it trusts for the server's
 * certificate, and the certificate it presents itself when the server asks for one (mutual TLS).
 * Given to {@link Warden.Builder#tls(TlsOptions)}, it applies to every connection of the {@code
 * Warden}: the server, a Sentinel deployment's data nodes and sentinels, every node of a cluster.
 *
 * <pre>{@code
 * Warden warden = Warden.builder()
 *     .uri("rediss://redis.internal:6380")
 *     .tls(TlsOptions.builder()
 *         .trustCertificates(Path.of("/etc/redis/ca.crt"))
 *         .clientCertificate(Path.of("/etc/app/client.crt"), Path.of("/etc/app/client.key"))
 *         .build())
 *     .build();
 * }</pre>
 *
 * <p>The server's certificate is always verified, its host name included (it must name the host of
 * the URI, as a DNS name or IP address). Files are PEM; the private key is PKCS#8 and not
 * encrypted. Trust and key material can also come as JSSE factories ({@link
 * Builder#trustManager(TrustManagerFactory)}, {@link Builder#keyManager(KeyManagerFactory)}), as a
 * Spring Boot SSL bundle provides them, with the enabled protocols and cipher suites. A failed
 * handshake fails {@code build()} with a {@link WardenException} that says what failed: the
 * server's certificate not trusted, its name not matching, or the client's certificate refused.
 * Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class TlsOptions {
  private final Path trustCertificates;
  private final Path clientCertificate;
  private final Path clientKey;
  private final TrustManagerFactory trustManager;
  private final KeyManagerFactory keyManager;
  private final List<String> protocols;
  private final List<String> cipherSuites;

  private TlsOptions(Builder builder) {
    this.trustCertificates = builder.trustCertificates;
    this.clientCertificate = builder.clientCertificate;
    this.clientKey = builder.clientKey;
    this.trustManager = builder.trustManager;
    this.keyManager = builder.keyManager;
    this.protocols = builder.protocols;
    this.cipherSuites = builder.cipherSuites;
  }

  /**
   * Returns a builder; without any option the JVM's default trust store verifies the server.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the PEM file of the certificate authorities trusted for the server's certificate, if
   * set; otherwise the JVM's default trust store is used.
   *
   * @return the file, or empty
   */
  public Optional<Path> trustCertificates() {
    return Optional.ofNullable(trustCertificates);
  }

  /**
   * Returns the PEM file of the certificate chain this client presents, if set.
   *
   * @return the file, or empty
   */
  public Optional<Path> clientCertificate() {
    return Optional.ofNullable(clientCertificate);
  }

  /**
   * Returns the PEM file of the private key of {@link #clientCertificate()}, if set.
   *
   * @return the file, or empty
   */
  public Optional<Path> clientKey() {
    return Optional.ofNullable(clientKey);
  }

  /**
   * Returns the factory of the trust managers that verify the server's certificate, if set (in
   * place of {@link #trustCertificates()}).
   *
   * @return the factory, or empty
   * @since 0.2
   */
  public Optional<TrustManagerFactory> trustManager() {
    return Optional.ofNullable(trustManager);
  }

  /**
   * Returns the factory of the key managers that present this client's certificate, if set (in
   * place of {@link #clientCertificate()}).
   *
   * @return the factory, or empty
   * @since 0.2
   */
  public Optional<KeyManagerFactory> keyManager() {
    return Optional.ofNullable(keyManager);
  }

  /**
   * Returns the TLS protocols to enable ({@code TLSv1.3}), empty for the JVM's defaults.
   *
   * @return the protocols
   * @since 0.2
   */
  public List<String> protocols() {
    return protocols;
  }

  /**
   * Returns the cipher suites to enable, empty for the JVM's defaults.
   *
   * @return the cipher suites
   * @since 0.2
   */
  public List<String> cipherSuites() {
    return cipherSuites;
  }

  @Override
  public String toString() {
    return "TlsOptions[trustCertificates="
        + (trustManager != null ? "a TrustManagerFactory" : trustCertificates)
        + ", clientCertificate="
        + (keyManager != null ? "a KeyManagerFactory" : clientCertificate)
        + (protocols.isEmpty() ? "" : ", protocols=" + protocols)
        + (cipherSuites.isEmpty() ? "" : ", cipherSuites=" + cipherSuites)
        + "]";
  }

  /**
   * Builds {@link TlsOptions}.
   *
   * @since 0.2
   */
  public static final class Builder {
    private Path trustCertificates;
    private Path clientCertificate;
    private Path clientKey;
    private TrustManagerFactory trustManager;
    private KeyManagerFactory keyManager;
    private List<String> protocols = List.of();
    private List<String> cipherSuites = List.of();

    private Builder() {}

    /**
     * Trusts the certificate authorities of a PEM file (and no others) for the server's
     * certificate.
     *
     * @param caCertificates a readable PEM file of one or more certificates
     * @return this builder
     * @throws IllegalArgumentException if it is null or not a readable file
     */
    public Builder trustCertificates(Path caCertificates) {
      this.trustCertificates = readable("caCertificates", caCertificates);
      this.trustManager = null;
      return this;
    }

    /**
     * Verifies the server's certificate with the trust managers of an initialized factory, in place
     * of {@link #trustCertificates(Path)}: a Spring Boot SSL bundle's, or one over a trust store.
     *
     * @param trustManager an initialized factory
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder trustManager(TrustManagerFactory trustManager) {
      this.trustManager = required("trustManager", trustManager);
      this.trustCertificates = null;
      return this;
    }

    /**
     * Presents the certificate of an initialized key manager factory to servers that ask for one,
     * in place of {@link #clientCertificate(Path, Path)}.
     *
     * @param keyManager an initialized factory
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder keyManager(KeyManagerFactory keyManager) {
      this.keyManager = required("keyManager", keyManager);
      this.clientCertificate = null;
      this.clientKey = null;
      return this;
    }

    /**
     * Enables only these TLS protocols ({@code "TLSv1.3"}); none given: the JVM's defaults.
     *
     * @param protocols the protocols
     * @return this builder
     * @throws IllegalArgumentException if it is null or holds a null or blank name
     * @since 0.2
     */
    public Builder protocols(String... protocols) {
      this.protocols = names("protocols", protocols);
      return this;
    }

    /**
     * Enables only these cipher suites; none given: the JVM's defaults.
     *
     * @param cipherSuites the cipher suites
     * @return this builder
     * @throws IllegalArgumentException if it is null or holds a null or blank name
     * @since 0.2
     */
    public Builder cipherSuites(String... cipherSuites) {
      this.cipherSuites = names("cipherSuites", cipherSuites);
      return this;
    }

    /**
     * Presents a certificate to servers that ask for one ({@code tls-auth-clients yes}).
     *
     * @param certificateChain a readable PEM file: the client's certificate, then its chain
     * @param privateKey a readable PEM file of its PKCS#8 private key, not encrypted
     * @return this builder
     * @throws IllegalArgumentException if either is null or not a readable file
     */
    public Builder clientCertificate(Path certificateChain, Path privateKey) {
      this.clientCertificate = readable("certificateChain", certificateChain);
      this.clientKey = readable("privateKey", privateKey);
      this.keyManager = null;
      return this;
    }

    /**
     * Returns the options.
     *
     * @return the options
     */
    public TlsOptions build() {
      return new TlsOptions(this);
    }

    private static <T> T required(String argument, T value) {
      if (value == null) {
        throw new IllegalArgumentException(argument + " must not be null");
      }
      return value;
    }

    private static List<String> names(String argument, String... names) {
      required(argument, names);
      for (String name : names) {
        if (name == null || name.isBlank()) {
          throw new IllegalArgumentException(
              argument + " must not hold a null or blank name: " + Arrays.toString(names));
        }
      }
      return List.of(names);
    }

    private static Path readable(String argument, Path file) {
      if (file == null || !Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(argument + " must be a readable file: " + file);
      }
      return file;
    }
  }
}
