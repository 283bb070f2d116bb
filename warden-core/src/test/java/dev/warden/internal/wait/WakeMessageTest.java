package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.VirtualTime;
import dev.warden.internal.wait.WakeMessage.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one parser of the wake-up vocabulary, payload by payload (see WakeMessage's Javadoc). */
class WakeMessageTest {
  private static WakeMessage wake(int count, String waiter) {
    return new WakeMessage(Kind.WAKE, count, waiter);
  }

  @Test
  void aLockReleaseWakesOne() {
    assertThat(WakeMessage.parse(WakeMessage.released("client-7"))).isEqualTo(WakeMessage.ONE);
    assertThat(WakeMessage.parse("released client-7")).isEqualTo(wake(1, null));
  }

  @Test
  void aForceUnlockOrAnyUnknownPayloadWakesOne() {
    assertThat(WakeMessage.parse("released")).isEqualTo(WakeMessage.ONE);
    assertThat(WakeMessage.parse("something new")).isEqualTo(WakeMessage.ONE);
    assertThat(WakeMessage.parse("")).isEqualTo(WakeMessage.ONE);
    assertThat(WakeMessage.parse("-1")).isEqualTo(WakeMessage.ONE);
    assertThat(WakeMessage.parse("3x")).isEqualTo(WakeMessage.ONE);
  }

  @Test
  void allWakesEveryWaiter() {
    assertThat(WakeMessage.parse("all")).isEqualTo(WakeMessage.ALL);
    assertThat(WakeMessage.ALL).isEqualTo(wake(Integer.MAX_VALUE, null));
  }

  @Test
  void aWPrefixNamesOneWaiterAlone() {
    assertThat(WakeMessage.parse("w:head-1")).isEqualTo(new WakeMessage(Kind.ONLY, 0, "head-1"));
    assertThat(WakeMessage.parse("w:head 1")).isEqualTo(WakeMessage.only("head 1"));
  }

  @Test
  void aNumberWakesThatManyOfTheLongestParked() {
    assertThat(WakeMessage.parse("3")).isEqualTo(wake(3, null));
    assertThat(WakeMessage.parse("99999999999999999999")).isEqualTo(wake(Integer.MAX_VALUE, null));
  }

  @Test
  void aNumberAndAnIdWakesThatWaiterFirstAndThatManyOthers() {
    assertThat(WakeMessage.parse("2 sem-waiter-9")).isEqualTo(wake(2, "sem-waiter-9"));
    assertThat(WakeMessage.parse("0 sem-waiter-9")).isEqualTo(wake(0, "sem-waiter-9"));
  }

  @Test
  void zeroWakesNobodyButStillCountsAsAWakeUpUnlikeNone() {
    WakeMessage zero = WakeMessage.parse("0");
    assertThat(zero).isEqualTo(wake(0, null)).isNotEqualTo(WakeMessage.NONE);

    VirtualTime time = new VirtualTime();
    Topic topic = new Topic("c", time, time, Duration.ofMillis(200).toNanos());
    List<String> woken = new ArrayList<>();
    assertThat(topic.park(() -> woken.add("parked"), topic.generation())).isTrue();

    long before = topic.generation();
    topic.deliver(WakeMessage.NONE);
    assertThat(topic.generation()).as("NONE is nothing at all").isEqualTo(before);
    topic.deliver(zero);
    assertThat(topic.generation()).as("\"0\" is a wake-up").isEqualTo(before + 1);
    assertThat(woken).isEmpty();
    assertThat(topic.park(() -> woken.add("in flight"), before))
        .as("an attempt in flight across a \"0\" must try again")
        .isFalse();
  }
}
