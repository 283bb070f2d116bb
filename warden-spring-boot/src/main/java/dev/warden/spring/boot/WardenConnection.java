package dev.warden.spring.boot;

import dev.warden.TlsOptions;
import dev.warden.Warden;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where the auto-configured {@link Warden} connects: one Lettuce URI (a server, or a master that
 * Sentinel manages) or the seeds of a Redis Cluster. Built from {@code warden.*} or from the
 * application's {@code spring.data.redis.*} connection; an application may declare its own bean of
 * this type.
 *
 * <p>Immutable. {@link #toString()} masks passwords; {@link #uris()} does not, so do not log it.
 *
 * @since 0.2
 */
public final class WardenConnection {
  /** The kind of deployment. */
  public enum Mode {
    /** One server ({@code redis://}, {@code rediss://}). */
    STANDALONE,
    /** A master that Sentinel manages ({@code redis-sentinel://}). */
    SENTINEL,
    /** A Redis Cluster. */
    CLUSTER
  }

  private static final Pattern USER_INFO = Pattern.compile("^([a-z-]+://)([^@/]*@)");

  private final Mode mode;
  private final List<String> uris;
  private final TlsOptions tls;

  private WardenConnection(Mode mode, List<String> uris) {
    this(mode, uris, null);
  }

  private WardenConnection(Mode mode, List<String> uris, TlsOptions tls) {
    this.mode = mode;
    this.uris = List.copyOf(uris);
    this.tls = tls;
  }

  /**
   * Returns a connection to the Redis of one Lettuce URI; {@code redis-sentinel://} and {@code
   * rediss-sentinel://} URIs are {@link Mode#SENTINEL}, others {@link Mode#STANDALONE}.
   *
   * @param uri the URI
   * @return the connection
   * @throws IllegalArgumentException if the URI is null or blank
   */
  public static WardenConnection uri(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("uri must not be null or blank: " + uri);
    }
    String scheme = uri.strip().toLowerCase(Locale.ROOT);
    Mode mode =
        scheme.startsWith("redis-sentinel:") || scheme.startsWith("rediss-sentinel:")
            ? Mode.SENTINEL
            : Mode.STANDALONE;
    return new WardenConnection(mode, List.of(uri.strip()));
  }

  /**
   * Returns a connection to a Redis Cluster through its seed nodes: {@code redis://host:port} (or
   * {@code rediss://}, with credentials) or plain {@code host:port}, which becomes {@code
   * redis://host:port}.
   *
   * @param seeds some of the cluster's nodes
   * @return the connection
   * @throws IllegalArgumentException if there are none, or one is blank
   */
  public static WardenConnection cluster(List<String> seeds) {
    if (seeds == null || seeds.isEmpty()) {
      throw new IllegalArgumentException("cluster seeds must not be empty: " + seeds);
    }
    List<String> uris =
        seeds.stream()
            .map(
                seed -> {
                  if (seed == null || seed.isBlank()) {
                    throw new IllegalArgumentException("a cluster seed is blank: " + seeds);
                  }
                  String s = seed.strip();
                  return s.contains("://") ? s : "redis://" + s;
                })
            .collect(Collectors.toList());
    return new WardenConnection(Mode.CLUSTER, uris);
  }

  /**
   * Returns the connection that the {@code warden.*} properties ask for ({@code warden.uri} or
   * {@code warden.cluster.nodes}), or {@code null} when they ask for none.
   *
   * @param properties the properties
   * @return the connection, or null
   * @throws IllegalStateException if both are set
   */
  public static WardenConnection of(WardenProperties properties) {
    boolean hasUri = properties.getUri() != null && !properties.getUri().isBlank();
    boolean hasNodes = !properties.getCluster().getNodes().isEmpty();
    if (hasUri && hasNodes) {
      throw new IllegalStateException("set either warden.uri or warden.cluster.nodes, not both");
    }
    if (hasUri) {
      return uri(properties.getUri());
    }
    return hasNodes ? cluster(properties.getCluster().getNodes()) : null;
  }

  /**
   * Returns a Lettuce URI with the given parts; user name and password are percent-encoded, so any
   * character is safe in them.
   *
   * @param scheme {@code redis}, {@code rediss}, {@code redis-sentinel} or {@code rediss-sentinel}
   * @param username the user name (ACL), or null
   * @param password the password, or null
   * @param hosts {@code host:port} of the server, or of each sentinel
   * @param database the database number (0: none given)
   * @param sentinelMaster the master's name for Sentinel, else null
   * @return the URI
   */
  static String lettuceUri(
      String scheme,
      String username,
      String password,
      List<String> hosts,
      int database,
      String sentinelMaster) {
    StringBuilder uri = new StringBuilder(scheme).append("://");
    if (password != null && !password.isEmpty()) {
      // Lettuce splits decoded user info at its first ':', so a password alone is written as
      // ":password" (which Lettuce reads as no user name) in case it contains a colon.
      if (username != null && !username.isEmpty()) {
        uri.append(encode(username));
      }
      uri.append(':').append(encode(password)).append('@');
    }
    uri.append(String.join(",", hosts));
    if (database != 0) {
      uri.append('/').append(database);
    }
    if (sentinelMaster != null) {
      uri.append('#').append(sentinelMaster);
    }
    return uri.toString();
  }

  /**
   * Formats a host and port for a URI, bracketing IPv6 addresses.
   *
   * @param host the host
   * @param port the port
   * @return {@code host:port}
   */
  static String hostAndPort(String host, int port) {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return h + ":" + port;
  }

  private static String encode(String part) {
    // URLEncoder writes a space as '+', which a URI's user info would keep as a plus.
    return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * Returns the kind of deployment.
   *
   * @return the mode
   */
  public Mode mode() {
    return mode;
  }

  /**
   * Returns the URI, or the cluster's seeds, with credentials.
   *
   * @return the URIs; one unless {@link Mode#CLUSTER}
   */
  public List<String> uris() {
    return uris;
  }

  /**
   * Returns the URIs with their passwords masked, for logs and the health endpoint.
   *
   * @return the masked URIs
   */
  public List<String> maskedUris() {
    return uris.stream().map(WardenConnection::mask).collect(Collectors.toList());
  }

  /**
   * Returns this connection with TLS as {@code tls} says (e.g. from a Spring Boot SSL bundle).
   *
   * @param tls the TLS options
   * @return the connection
   * @throws IllegalArgumentException if it is null
   * @since 0.2
   */
  public WardenConnection withTls(TlsOptions tls) {
    if (tls == null) {
      throw new IllegalArgumentException("tls must not be null");
    }
    return new WardenConnection(mode, uris, tls);
  }

  /**
   * Returns the TLS options of this connection, if it has its own (else the URIs' scheme decides).
   *
   * @return the options, or empty
   * @since 0.2
   */
  public Optional<TlsOptions> tls() {
    return Optional.ofNullable(tls);
  }

  /**
   * Sets the address on a builder: {@code uri(...)} or {@code cluster(...)}, and {@code tls(...)}
   * when this connection has TLS options.
   *
   * @param builder the builder
   * @return the builder
   */
  public Warden.Builder applyTo(Warden.Builder builder) {
    if (tls != null) {
      builder.tls(tls);
    }
    return mode == Mode.CLUSTER
        ? builder.cluster(uris.toArray(String[]::new))
        : builder.uri(uris.get(0));
  }

  static String mask(String uri) {
    Matcher m = USER_INFO.matcher(uri);
    if (!m.find()) {
      return uri;
    }
    String userInfo = m.group(2);
    int colon = userInfo.indexOf(':');
    String masked = colon >= 0 ? userInfo.substring(0, colon) + ":****@" : "****@";
    return m.group(1) + masked + uri.substring(m.end());
  }

  /** Returns whether the other is a connection of the same mode to the same URIs, same TLS. */
  @Override
  public boolean equals(Object other) {
    return other instanceof WardenConnection that
        && that.mode == mode
        && that.uris.equals(uris)
        && Objects.equals(that.tls, tls);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, uris, tls);
  }

  /** Returns the mode and the URIs, passwords masked. */
  @Override
  public String toString() {
    return mode.name().toLowerCase(Locale.ROOT) + " " + maskedUris();
  }
}
