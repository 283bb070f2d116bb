package dev.warden.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;

/** Turning spring.data.redis.* connection details and warden.* into Warden's Lettuce URIs. */
class WardenConnectionTest {
  private static final String PASSWORD = "p@ss:w/rd %+#?";

  private static DataRedisConnectionDetails standalone(
      String user, String password, String host, int port, int database) {
    return new DataRedisConnectionDetails() {
      @Override
      public String getUsername() {
        return user;
      }

      @Override
      public String getPassword() {
        return password;
      }

      @Override
      public Standalone getStandalone() {
        return Standalone.of(host, port, database);
      }
    };
  }

  @Test
  void standaloneDetailsBecomeARedisUriThatLettuceReadsBackExactly() {
    WardenConnection connection =
        DataRedisConnections.of(standalone("app", PASSWORD, "db.example", 6380, 3), false);

    assertThat(connection.mode()).isEqualTo(WardenConnection.Mode.STANDALONE);
    RedisURI parsed = RedisURI.create(connection.uris().get(0));
    assertThat(parsed.getHost()).isEqualTo("db.example");
    assertThat(parsed.getPort()).isEqualTo(6380);
    assertThat(parsed.getDatabase()).isEqualTo(3);
    RedisCredentials credentials = parsed.getCredentialsProvider().resolveCredentials().block();
    assertThat(credentials.getUsername()).isEqualTo("app");
    assertThat(new String(credentials.getPassword())).isEqualTo(PASSWORD);
    assertThat(parsed.isSsl()).isFalse();
  }

  @Test
  void sslDetailsBecomeARedissUri() {
    WardenConnection connection =
        DataRedisConnections.of(standalone(null, null, "localhost", 6379, 0), true);

    assertThat(connection.uris()).containsExactly("rediss://localhost:6379");
    assertThat(RedisURI.create(connection.uris().get(0)).isSsl()).isTrue();
  }

  @Test
  void sentinelDetailsBecomeARedisSentinelUriWithTheDataNodesPassword() {
    DataRedisConnectionDetails details =
        new DataRedisConnectionDetails() {
          @Override
          public String getPassword() {
            return PASSWORD;
          }

          @Override
          public Sentinel getSentinel() {
            return new Sentinel() {
              @Override
              public int getDatabase() {
                return 2;
              }

              @Override
              public String getMaster() {
                return "orders";
              }

              @Override
              public List<Node> getNodes() {
                return List.of(new Node("s1", 26379), new Node("s2", 26380));
              }

              @Override
              public String getUsername() {
                return null;
              }

              @Override
              public String getPassword() {
                return null;
              }
            };
          }
        };

    WardenConnection connection = DataRedisConnections.of(details, false);

    assertThat(connection.mode()).isEqualTo(WardenConnection.Mode.SENTINEL);
    RedisURI parsed = RedisURI.create(connection.uris().get(0));
    assertThat(parsed.getSentinelMasterId()).isEqualTo("orders");
    assertThat(parsed.getSentinels())
        .extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("s1", 26379),
            org.assertj.core.groups.Tuple.tuple("s2", 26380));
    assertThat(parsed.getDatabase()).isEqualTo(2);
    assertThat(
            new String(parsed.getCredentialsProvider().resolveCredentials().block().getPassword()))
        .isEqualTo(PASSWORD);
  }

  @Test
  void clusterDetailsBecomeOneSeedUriPerNode() {
    DataRedisConnectionDetails details =
        new DataRedisConnectionDetails() {
          @Override
          public String getPassword() {
            return "secret";
          }

          @Override
          public Cluster getCluster() {
            return () -> List.of(new Node("10.0.0.1", 7000), new Node("::1", 7001));
          }
        };

    WardenConnection connection = DataRedisConnections.of(details, false);

    assertThat(connection.mode()).isEqualTo(WardenConnection.Mode.CLUSTER);
    assertThat(connection.uris())
        .containsExactly("redis://:secret@10.0.0.1:7000", "redis://:secret@[::1]:7001");
    RedisURI parsed = RedisURI.create(connection.uris().get(1));
    assertThat(parsed.getPort()).isEqualTo(7001);
    RedisCredentials credentials = parsed.getCredentialsProvider().resolveCredentials().block();
    assertThat(credentials.getUsername()).isNull();
    assertThat(new String(credentials.getPassword())).isEqualTo("secret");
  }

  @Test
  void aSentinelPasswordIsRejectedWithoutShowingIt() {
    DataRedisConnectionDetails details =
        new DataRedisConnectionDetails() {
          @Override
          public Sentinel getSentinel() {
            return new Sentinel() {
              @Override
              public int getDatabase() {
                return 0;
              }

              @Override
              public String getMaster() {
                return "m";
              }

              @Override
              public List<Node> getNodes() {
                return List.of(new Node("s1", 26379));
              }

              @Override
              public String getUsername() {
                return null;
              }

              @Override
              public String getPassword() {
                return "sentinel-secret";
              }
            };
          }
        };

    assertThatThrownBy(() -> DataRedisConnections.of(details, false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("spring.data.redis.sentinel.password")
        .hasMessageNotContaining("sentinel-secret");
  }

  @Test
  void toStringAndMaskedUrisNeverShowThePassword() {
    WardenConnection connection =
        DataRedisConnections.of(standalone("app", PASSWORD, "h", 1, 0), false);

    assertThat(connection.toString())
        .isEqualTo("standalone [redis://app:****@h:1]")
        .doesNotContain("p%40ss");
    assertThat(WardenConnection.uri("redis://only-password@h:1").maskedUris())
        .containsExactly("redis://****@h:1");
    assertThat(WardenConnection.uri("redis-sentinel://pw@s1:1,s2:2#m").toString())
        .isEqualTo("sentinel [redis-sentinel://****@s1:1,s2:2#m]");
    assertThat(WardenConnection.uri("redis://h:1").toString())
        .isEqualTo("standalone [redis://h:1]");
  }

  @Test
  void wardenPropertiesChooseAUriOrClusterSeedsButNotBoth() {
    WardenProperties properties = new WardenProperties();
    assertThat(WardenConnection.of(properties)).isNull();

    properties.getCluster().setNodes(List.of("h1:7000", "rediss://pw@h2:7001"));
    assertThat(WardenConnection.of(properties).uris())
        .containsExactly("redis://h1:7000", "rediss://pw@h2:7001");

    properties.setUri("redis://h:1");
    assertThatThrownBy(() -> WardenConnection.of(properties))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("set either warden.uri or warden.cluster.nodes, not both");

    properties.getCluster().setNodes(List.of());
    assertThat(WardenConnection.of(properties))
        .isEqualTo(WardenConnection.uri("redis://h:1"))
        .extracting(WardenConnection::mode)
        .isEqualTo(WardenConnection.Mode.STANDALONE);
  }
}
