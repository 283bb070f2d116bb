package dev.warden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

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
 * encrypted. A failed handshake fails {@code build()} with a {@link WardenException} that says what
 * failed: the server's certificate not trusted, its name not matching, or the client's certificate
 * refused. Immutable and thread-safe.
 *
 * @since 0.2
 */
public final class TlsOptions {
  private final Path trustCertificates;
  private final Path clientCertificate;
  private final Path clientKey;

  private TlsOptions(Builder builder) {
    this.trustCertificates = builder.trustCertificates;
    this.clientCertificate = builder.clientCertificate;
    this.clientKey = builder.clientKey;
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

  @Override
  public String toString() {
    return "TlsOptions[trustCertificates="
        + trustCertificates
        + ", clientCertificate="
        + clientCertificate
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

    private static Path readable(String argument, Path file) {
      if (file == null || !Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(argument + " must be a readable file: " + file);
      }
      return file;
    }
  }
}
