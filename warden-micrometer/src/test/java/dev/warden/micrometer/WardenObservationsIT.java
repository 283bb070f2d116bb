package dev.warden.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.DocExamples;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link WardenObservations} against a real redis-server, recorded by Micrometer's {@link
 * TestObservationRegistry}: a wait and a hold per acquisition, their outcome, the caller's
 * observation as parent, a lost lease as an event, and names and tokens only when opted in.
 */
@ExtendWith(WardenExtension.class)
class WardenObservationsIT {
  private static final Duration BOUND = Duration.ofSeconds(10);

  /** Records the events signalled on observations (the test registry keeps contexts only). */
  private static final class Events implements ObservationHandler<Observation.Context> {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(Observation.Event event, Observation.Context context) {
      seen.add(context.getName() + " " + event.getName());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  @Test
  void anAcquisitionIsAWaitAndAHoldUnderTheCallersObservation(Warden warden) throws Exception {
    TestObservationRegistry registry = TestObservationRegistry.create();
    try (WardenObservations observations = WardenObservations.builder(warden, registry).build()) {
      observations.start();
      Observation request = Observation.start("http.request", registry);
      Observation.Scope scope = request.openScope();
      try {
        warden.lock("invoice-42").acquire(BOUND).close();
      } finally {
        scope.close();
      }
      request.stop();

      assertThat(registry)
          .hasObservationWithNameEqualTo(WardenObservations.ACQUIRE)
          .that()
          .hasBeenStarted()
          .hasBeenStopped()
          .hasParentObservationEqualTo(request)
          .hasLowCardinalityKeyValue("warden.type", "lock")
          .hasLowCardinalityKeyValue("warden.outcome", "acquired")
          .doesNotHaveHighCardinalityKeyValueWithKey("warden.name");
      assertThat(registry)
          .hasObservationWithNameEqualTo(WardenObservations.HOLD)
          .that()
          .hasBeenStopped()
          .hasParentObservationEqualTo(request)
          .hasLowCardinalityKeyValue("warden.lease", "released")
          .doesNotHaveHighCardinalityKeyValueWithKey("warden.token");
    }
  }

  @Test
  void aWaitThatRunsOutIsTimedOutAndMakesNoHold(WardenFactory wardens) throws Exception {
    Warden warden = wardens.create();
    LockHandle elsewhere = wardens.create().lock("job").acquire(BOUND);
    TestObservationRegistry registry = TestObservationRegistry.create();
    try (WardenObservations observations = WardenObservations.builder(warden, registry).build()) {
      observations.start();
      assertThat(warden.lock("job").tryAcquire(Duration.ofMillis(50))).isEmpty();

      // the end of an acquisition is heard on the thread that completed it, which may be a moment
      // after the caller's call returned (WardenListener.acquisitionEnded)
      await()
          .atMost(BOUND)
          .untilAsserted(
              () ->
                  assertThat(registry)
                      .hasNumberOfObservationsWithNameEqualTo(WardenObservations.HOLD, 0)
                      .hasObservationWithNameEqualTo(WardenObservations.ACQUIRE)
                      .that()
                      .hasBeenStopped()
                      .hasLowCardinalityKeyValue("warden.outcome", "timed_out"));
    }
    elsewhere.close();
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 300)
  void aLostLeaseIsAnEventOnTheHold(WardenFactory wardens) throws Exception {
    Warden warden = wardens.create();
    TestObservationRegistry registry = TestObservationRegistry.create();
    Events events = new Events();
    registry.observationConfig().observationHandler(events);
    try (WardenObservations observations = WardenObservations.builder(warden, registry).build()) {
      observations.start();
      LockHandle hold = warden.lock("job").acquire(BOUND);
      wardens.create().lock("job").forceUnlock();
      hold.leaseLost().toCompletableFuture().get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertThatThrownBy(hold::close).isInstanceOf(LeaseExpiredException.class);

      await().atMost(BOUND).until(() -> events.seen.contains("warden.lock.hold warden.lease.lost"));
      assertThat(registry)
          .hasObservationWithNameEqualTo(WardenObservations.HOLD)
          .that()
          .hasBeenStopped()
          .hasLowCardinalityKeyValue("warden.lease", "lost");
    }
  }

  @Test
  void namesAndTokensAppearOnlyWhereOptedIn(Warden warden) throws Exception {
    TestObservationRegistry registry = TestObservationRegistry.create();
    try (WardenObservations observations =
        WardenObservations.builder(warden, registry)
            .lockNames(List.of("nightly-report"))
            .fencingTokens(true)
            .build()) {
      observations.start();
      LockHandle report = warden.lock("nightly-report").acquire(BOUND);
      long token = report.fencingToken();
      report.close();
      warden.lock("invoice-42").acquire(BOUND).close();

      assertThat(registry)
          .hasAnObservation(
              o ->
                  o.hasNameEqualTo(WardenObservations.HOLD)
                      .hasHighCardinalityKeyValue("warden.name", "nightly-report")
                      .hasHighCardinalityKeyValue("warden.token", Long.toString(token)))
          .hasAnObservation(
              o ->
                  o.hasNameEqualTo(WardenObservations.ACQUIRE)
                      .doesNotHaveHighCardinalityKeyValueWithKey("warden.name")
                      .hasLowCardinalityKeyValue("warden.outcome", "acquired"));
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheArgument(Warden warden) {
    TestObservationRegistry registry = TestObservationRegistry.create();
    assertThatThrownBy(() -> WardenObservations.builder(null, registry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("warden");
    assertThatThrownBy(() -> WardenObservations.builder(warden, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("registry");
    assertThatThrownBy(() -> WardenObservations.builder(warden, registry).lockNames(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lockNames");
  }

  @Test
  void theReadmeExampleRunsAsShown(Warden warden) throws Exception {
    TestObservationRegistry observationRegistry = TestObservationRegistry.create();
    // example observations: begin
    WardenObservations observations =
        WardenObservations.builder(warden, observationRegistry)
            .lockNames(List.of("nightly-report")) // opt-in: warden.name on these names only
            .fencingTokens(true) // opt-in: warden.token on each hold
            .build();
    observations.start(); // Spring Boot does this when an ObservationRegistry bean exists
    // example observations: end
    warden.lock("nightly-report").acquire(BOUND).close();
    observations.close();
    assertThat(observationRegistry)
        .hasNumberOfObservationsWithNameEqualTo(WardenObservations.ACQUIRE, 1)
        .hasNumberOfObservationsWithNameEqualTo(WardenObservations.HOLD, 1);
    DocExamples.assertShown(
        Path.of("../docs/micrometer.md"),
        "observations",
        Path.of("src/test/java/dev/warden/micrometer/WardenObservationsIT.java"));
  }
}
