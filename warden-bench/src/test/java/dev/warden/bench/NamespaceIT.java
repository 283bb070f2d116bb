package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The round trip's network namespace against a real redis-server, without a delay (this machine's
 * kernel may lack sch_netem): a process inside reaches Redis over the pair, and closing removes the
 * namespace and the pair. Needs root and iproute2; skipped elsewhere.
 */
class NamespaceIT {

  @Test
  void aProcessInsideReachesRedisOverThePairAndCloseRemovesBoth() {
    assumeTrue(canMakeNamespaces(), "needs root and ip netns");
    String name = "wbench-" + ProcessHandle.current().pid();
    try (RedisServer server = RedisServer.start()) {
      Namespace namespace = Namespace.create(Duration.ZERO);
      try {
        String uri = namespace.clientUri(server);
        String address = uri.substring("redis://".length(), uri.lastIndexOf(':'));

        String reply =
            Namespace.run(
                namespace
                    .exec(
                        List.of(
                            "redis-cli",
                            "-h",
                            address,
                            "-p",
                            Integer.toString(server.port()),
                            "PING"))
                    .toArray(String[]::new));

        assertThat(reply.strip()).isEqualTo("PONG");
        assertThat(address).startsWith("10.213.");
        assertThat(Namespace.run("ip", "netns", "list")).contains(name);
        assertThat(namespace.description()).contains(name).contains("without added delay");
      } finally {
        namespace.close();
      }
      assertThat(Namespace.run("ip", "netns", "list")).doesNotContain(name);
      assertThatThrownBy(
              () -> Namespace.run("ip", "link", "show", "wb" + ProcessHandle.current().pid() + "h"))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  private static boolean canMakeNamespaces() {
    try {
      Namespace.run("ip", "netns", "list");
      return "root".equals(System.getProperty("user.name"));
    } catch (IllegalStateException e) {
      return false;
    }
  }
}
