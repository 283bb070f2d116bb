package dev.warden.cli;

import dev.warden.DeploymentReport;
import dev.warden.Warden;
import dev.warden.testkit.RedisDeployment;
import dev.warden.testkit.WardenDeployment;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the CLI's Redis is: one URI ({@code redis://}, {@code rediss://}, or {@code
 * redis-sentinel://h:p,h:p#master}), or the seed URIs of a Redis Cluster (comma-separated, with
 * {@code --cluster}), and the key prefix of the Warden there ({@code --key-prefix}). Immutable.
 *
 * @param uri the URI, or the cluster's seeds joined by commas
 * @param cluster whether {@code uri} lists cluster seeds
 * @param keyPrefix the key prefix Warden's keys are under, or null for none
 */
record Target(String uri, boolean cluster, String keyPrefix) {
  /** Where Redis is, with Warden's keys under no prefix. */
  Target(String uri, boolean cluster) {
    this(uri, cluster, null);
  }

  /** Where a throwaway deployment is, now: a cluster's seeds are its current masters. */
  static Target of(RedisDeployment deployment) {
    return new Target(
        String.join(",", deployment.uris()), deployment.kind() == WardenDeployment.Kind.CLUSTER);
  }

  /** The same Redis, with Warden's keys under {@code keyPrefix} (null: none). */
  Target withKeyPrefix(String keyPrefix) {
    return new Target(uri, cluster, keyPrefix);
  }

  /** Returns the cluster's seed URIs; one element for a plain URI. */
  List<String> seeds() {
    List<String> seeds = new ArrayList<>();
    int start = 0;
    while (start <= uri.length()) {
      int comma = uri.indexOf(',', start);
      int end = comma < 0 ? uri.length() : comma;
      String seed = uri.substring(start, end).strip();
      if (!seed.isEmpty()) {
        seeds.add(seed);
      }
      start = end + 1;
    }
    return seeds;
  }

  /**
   * Connects a {@link Warden} to it.
   *
   * @throws IllegalArgumentException if a URI is malformed
   * @throws dev.warden.WardenException if Redis cannot be reached
   */
  Warden connect() {
    return builder().build();
  }

  /**
   * Checks what it allows of what Warden needs ({@link Warden.Builder#check()}).
   *
   * @throws IllegalArgumentException if a URI is malformed
   * @throws dev.warden.WardenException if Redis cannot be reached
   */
  DeploymentReport check() {
    return builder().check();
  }

  /**
   * A builder for a {@link Warden} there.
   *
   * @throws IllegalArgumentException if the key prefix is malformed
   */
  private Warden.Builder builder() {
    Warden.Builder builder =
        cluster
            ? Warden.builder().cluster(seeds().toArray(String[]::new))
            : Warden.builder().uri(uri);
    return keyPrefix == null ? builder : builder.keyPrefix(keyPrefix);
  }

  /** The arguments that hand it to a worker process. */
  List<String> arguments() {
    List<String> arguments = new ArrayList<>(List.of("--uri", uri));
    if (cluster) {
      arguments.add("--cluster");
    }
    if (keyPrefix != null) {
      arguments.addAll(List.of("--key-prefix", keyPrefix));
    }
    return arguments;
  }

  /**
   * Describes it for output, passwords masked: {@code Redis Cluster redis://127.0.0.1:7000,...},
   * with {@code (key prefix billing)} when there is one.
   */
  String describe() {
    return (cluster ? "Redis Cluster " : "")
        + Text.withoutPassword(uri)
        + (keyPrefix == null ? "" : " (key prefix " + keyPrefix + ")");
  }
}
