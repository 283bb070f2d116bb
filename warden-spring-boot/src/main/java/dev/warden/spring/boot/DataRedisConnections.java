package dev.warden.spring.boot;

import java.util.List;
import java.util.stream.Collectors;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;

/**
 * Turns Spring Boot's Redis connection details ({@code spring.data.redis.*}, or a service
 * connection) into Warden's. Loaded only when spring-boot-data-redis is present.
 */
final class DataRedisConnections {
  private DataRedisConnections() {}

  /**
   * Returns Warden's connection to the Redis that Spring Data Redis uses: Sentinel first, then
   * Cluster, then one server, as Boot itself chooses.
   *
   * @param details Boot's connection details
   * @param ssl whether to use TLS ({@code spring.data.redis.ssl.*}, a {@code rediss://} URL)
   * @throws IllegalStateException for what Warden cannot express: a static master/replica set, or a
   *     password for the sentinels themselves
   */
  static WardenConnection of(DataRedisConnectionDetails details, boolean ssl) {
    String username = details.getUsername();
    String password = details.getPassword();
    DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      if (sentinel.getPassword() != null && !sentinel.getPassword().isEmpty()) {
        throw new IllegalStateException(
            "Warden cannot authenticate to the sentinels themselves"
                + " (spring.data.redis.sentinel.password is set); set warden.uri to a"
                + " redis-sentinel:// URI whose password is the data nodes'");
      }
      return WardenConnection.uri(
          WardenConnection.lettuceUri(
              ssl ? "rediss-sentinel" : "redis-sentinel",
              username,
              password,
              hosts(sentinel.getNodes()),
              sentinel.getDatabase(),
              sentinel.getMaster()));
    }
    DataRedisConnectionDetails.Cluster cluster = details.getCluster();
    if (cluster != null) {
      return WardenConnection.cluster(
          hosts(cluster.getNodes()).stream()
              .map(
                  host ->
                      WardenConnection.lettuceUri(
                          ssl ? "rediss" : "redis", username, password, List.of(host), 0, null))
              .collect(Collectors.toList()));
    }
    if (details.getMasterReplica() != null) {
      throw new IllegalStateException(
          "Warden does not support a static master/replica set; set warden.uri to the master");
    }
    DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
    return WardenConnection.uri(
        WardenConnection.lettuceUri(
            ssl ? "rediss" : "redis",
            username,
            password,
            List.of(WardenConnection.hostAndPort(standalone.getHost(), standalone.getPort())),
            standalone.getDatabase(),
            null));
  }

  private static List<String> hosts(List<Node> nodes) {
    return nodes.stream()
        .map(node -> WardenConnection.hostAndPort(node.host(), node.port()))
        .collect(Collectors.toList());
  }
}
