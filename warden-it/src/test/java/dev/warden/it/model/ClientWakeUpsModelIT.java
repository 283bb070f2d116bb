package dev.warden.it.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testkit.RedisServer;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ModelIT} with wake-ups published by the client ({@code WakeUps.FROM_CLIENT}): every script
 * runs as its recording twin, whose reply ({@code {recorded wake-ups, reply}}) {@link Wire} checks
 * and unwraps, and the recorded wake-ups are PUBLISHed after it, as {@code redis.Scripts} does. The
 * same families, invariants and faults (a reply lost after the script ran, rewinds, give-ups) judge
 * the replies a client in that mode acts on; each family runs {@value #SECONDS} s by default (about
 * 25 s in all), with the same system properties as {@link ModelIT}.
 */
class ClientWakeUpsModelIT extends ModelIT {
  private static final int SECONDS = 5;

  // hides ModelIT's: JUnit runs only this one for this class
  @BeforeAll
  static void connect(RedisServer server) {
    wire = new Wire(server.uri(), /* clientPublishes= */ true);
  }

  @Override
  int defaultSeconds() {
    return SECONDS;
  }

  /** The twins recorded wake-ups, and they went out from the client: the run was in the mode. */
  @Override
  void ran(Model.Family family, long published) {
    System.out.printf("model %s: %d wake-ups published%n", label(family), published);
    assertThat(published).as(label(family)).isPositive();
  }

  @Override
  String label(Model.Family family) {
    return family.name() + " (wake-ups from the client)";
  }
}
