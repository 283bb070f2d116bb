package dev.warden.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** The example on a random port against a testkit redis-server, through its HTTP endpoints. */
@ExtendWith(WardenExtension.class)
class InvoiceApplicationIT {
  private final HttpClient http = HttpClient.newHttpClient();

  /** The example on a random port against the testkit's redis-server, with extra arguments. */
  private static ConfigurableApplicationContext start(RedisServer redis, String... extra) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--server.port=0",
                "--spring.data.redis.url=" + redis.uri(),
                "--spring.main.banner-mode=off"));
    args.addAll(List.of(extra));
    return SpringApplication.run(InvoiceApplication.class, args.toArray(String[]::new));
  }

  private static String base(ConfigurableApplicationContext context) {
    return "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
  }

  private HttpResponse<String> call(String method, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void concurrentChargesOfOneInvoiceChargeItOnceAndTheEndpointsAnswer(RedisServer redis)
      throws Exception {
    try (ConfigurableApplicationContext context = start(redis)) {
      String base = base(context);

      List<String> answers = new CopyOnWriteArrayList<>();
      StartGate.run(
          6,
          3,
          contender ->
              answers.add(call("POST", base + "/invoices/42/charge").body().replace(" ", "")));

      assertThat(answers).hasSize(18);
      assertThat(answers).filteredOn(a -> a.contains("\"charged\":true")).hasSize(1);
      assertThat(answers).filteredOn(a -> a.contains("\"charged\":false")).hasSize(17);
      assertThat(redis.redis().exists("example:charged:42")).isEqualTo(1);

      HttpResponse<String> health = call("GET", base + "/actuator/health");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body())
          .containsPattern(
              "\"warden\":\\{\"details\":\\{\"mode\":\"standalone\"[^}]*},\"status\":\"UP\"}");

      HttpResponse<String> activity = call("GET", base + "/actuator/warden");
      assertThat(activity.statusCode()).isEqualTo(200);
      assertThat(activity.body()).isEqualTo("{\"holds\":[],\"waiters\":[]}");

      HttpResponse<String> acquisitions = call("GET", base + "/actuator/metrics/warden.acquire");
      assertThat(acquisitions.statusCode()).isEqualTo(200);
      assertThat(acquisitions.body().replace(" ", ""))
          .contains("\"statistic\":\"COUNT\",\"value\":18.0");
    }
  }

  @Test
  void aLockWaitIsASpanUnderTheRequestsSpanAndTheFutureEndpointChargesOnce(RedisServer redis)
      throws Exception {
    try (ConfigurableApplicationContext context = start(redis)) {
      String base = base(context);

      List<String> answers = new CopyOnWriteArrayList<>();
      StartGate.run(
          4,
          2,
          contender ->
              answers.add(call("POST", base + "/invoices/7/charge-async").body().replace(" ", "")));
      assertThat(answers).filteredOn(a -> a.contains("\"charged\":true")).hasSize(1);
      assertThat(answers).filteredOn(a -> a.contains("\"charged\":false")).hasSize(7);

      assertThat(call("POST", base + "/invoices/8/charge").statusCode()).isEqualTo(200);
      RecentSpans recent = context.getBean(RecentSpans.class);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                List<RecentSpans.Span> spans = recent.spans();
                RecentSpans.Span request =
                    spans.stream()
                        .filter(s -> s.name().contains("/invoices/{id}/charge"))
                        .filter(s -> s.parentId() == null)
                        .reduce((first, second) -> second)
                        .orElseThrow();
                assertThat(spans)
                    .filteredOn(s -> s.traceId().equals(request.traceId()))
                    .extracting(RecentSpans.Span::name, RecentSpans.Span::parentId)
                    .contains(
                        tuple("warden acquire lock", request.id()),
                        tuple("warden hold lock", request.id()));
              });
      HttpResponse<String> spans = call("GET", base + "/spans");
      assertThat(spans.body()).contains("warden acquire lock");
    }
  }

  @Test
  void theReactiveEndpointChargesOnceWithTheHoldsFencingToken(RedisServer redis) throws Exception {
    try (ConfigurableApplicationContext context = start(redis)) {
      String base = base(context);
      List<String> answers = new CopyOnWriteArrayList<>();
      StartGate.run(
          4,
          2,
          contender ->
              answers.add(
                  call("POST", base + "/invoices/11/charge-reactive").body().replace(" ", "")));
      assertThat(answers).hasSize(8);
      List<String> charged = answers.stream().filter(a -> a.contains("\"charged\":true")).toList();
      assertThat(charged).hasSize(1);
      assertThat(answers).filteredOn(a -> a.contains("\"charged\":false")).hasSize(7);
      String token = redis.redis().get("example:charged:11");
      assertThat(Long.parseLong(token)).as("the hold's fencing token").isPositive();
      assertThat(charged.get(0)).contains("\"fencingToken\":" + token);
      assertThat(answers).allMatch(a -> a.contains("\"fencingToken\":" + token));
    }
  }

  @Test
  void aGracefulShutdownReleasesWhatIsStillHeldSoAnotherInstanceTakesItAtOnce(
      RedisServer redis, Warden other) throws Exception {
    ConfigurableApplicationContext context = start(redis, "--warden.shutdown.grace=200ms");
    Warden app = context.getBean(Warden.class);
    LockHandle stillHeld = app.lock("invoice-12").acquire(Duration.ZERO);
    DistributedLock elsewhere = other.lock("invoice-12");
    assertThat(elsewhere.tryLock()).as("held by the application").isFalse();
    context.close(); // the grace passes with the hold still held: it is released, owner-checked
    assertThat(stillHeld.leaseLost().toCompletableFuture()).as("its holder is told").isDone();
    assertThat(elsewhere.tryLock())
        .as("taken at once, not after the application's 30 s lease")
        .isTrue();
    elsewhere.unlock();
  }
}
