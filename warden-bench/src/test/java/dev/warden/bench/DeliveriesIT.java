package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeliveriesIT {

  @Test
  void deliveriesAreTheTrialChannelsMessagesTimesTheirSubscribers() {
    try (RedisServer server = RedisServer.start();
        Deliveries deliveries = Deliveries.watch(server.uri(), "warden-bench:it")) {
      RedisClient client = RedisClient.create(server.uri());
      try {
        StatefulRedisPubSubConnection<String, String> first = client.connectPubSub();
        StatefulRedisPubSubConnection<String, String> second = client.connectPubSub();
        first.sync().subscribe("warden-bench:it:lock", "another-trial:lock");
        second.sync().subscribe("warden-bench:it:lock");
        var redis = client.connect().sync();

        deliveries.open();
        for (int i = 0; i < 3; i++) {
          redis.publish("warden-bench:it:lock", "released");
        }
        redis.publish("another-trial:lock", "released"); // another prefix: not counted
        await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.messages() >= 3);
        deliveries.closeWindow();
        Tally tally = new Tally(new Window());
        deliveries.addTo(tally);

        assertThat(tally.inRun("publishes")).isEqualTo(3);
        assertThat(tally.inRun("deliveries")).isEqualTo(6); // 3 messages x 2 subscribers
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
