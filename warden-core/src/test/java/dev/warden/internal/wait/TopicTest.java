package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wake-up protocol of one topic, without Redis: parking, wake-one order, the race guard. */
class TopicTest {
  private final Topic topic = new Topic("c");
  private final List<String> woken = new ArrayList<>();

  private Waiter waiter(String name) {
    return () -> woken.add(name);
  }

  /** A waiter that a message can name by its id. */
  private Waiter named(String name) {
    return new Waiter() {
      @Override
      public void wake() {
        woken.add(name);
      }

      @Override
      public String waiterId() {
        return name;
      }
    };
  }

  @Test
  void aTargetedMessageWakesOnlyThatWaiter() {
    topic.park(named("a"), topic.generation());
    topic.park(named("b"), topic.generation());
    topic.deliver(WakeMessage.parse("w:b"));
    assertThat(woken).containsExactly("b");
    topic.deliver(WakeMessage.parse("w:nobody-here"));
    assertThat(woken).containsExactly("b");
  }

  @Test
  void aTargetedWakeUpForAWaiterWhoseAttemptIsInFlightIsKeptForItsNextPark() {
    topic.deliver(WakeMessage.parse("w:a")); // arrives before a's failed attempt returns
    assertThat(topic.park(named("a"), topic.generation())).isFalse();
    assertThat(topic.park(named("a"), topic.generation())).isTrue();
  }

  @Test
  void untargetedWakeUpsDoNotDisturbTargetedWaitersOrder() {
    topic.park(waiter("plain"), topic.generation());
    topic.deliver(WakeMessage.parse("all"));
    assertThat(woken).containsExactly("plain");
    topic.park(waiter("again"), topic.generation());
    topic.deliver(WakeMessage.parse("released"));
    assertThat(woken).containsExactly("plain", "again");
  }

  private void park(Waiter... waiters) {
    for (Waiter w : waiters) {
      assertThat(topic.park(w, topic.generation())).isTrue();
    }
  }

  @Test
  void aReleaseWakesOnlyTheWaiterParkedLongest() {
    long seen = topic.generation();
    assertThat(topic.park(waiter("first"), seen)).isTrue();
    assertThat(topic.park(waiter("second"), seen)).isTrue();
    topic.wakeOne();
    assertThat(woken).containsExactly("first");
    topic.wakeOne();
    assertThat(woken).containsExactly("first", "second");
    topic.wakeOne(); // nobody parked: only counted
    assertThat(woken).hasSize(2);
  }

  @Test
  void aWaiterThatMissedAWakeUpWhileItsAttemptWasInFlightRefusesToPark() {
    long seenBeforeAttempt = topic.generation();
    topic.wakeOne(); // the release message overtakes the failed attempt's reply
    assertThat(topic.park(waiter("late"), seenBeforeAttempt)).isFalse();
    assertThat(topic.park(waiter("late"), topic.generation())).isTrue();
  }

  @Test
  void aResubscriptionWakesEveryParkedWaiter() {
    long seen = topic.generation();
    topic.park(waiter("a"), seen);
    topic.park(waiter("b"), seen);
    topic.park(waiter("c"), seen);
    topic.wakeAll();
    assertThat(woken).containsExactly("a", "b", "c");
  }

  @Test
  void unparkingClaimsTheWaiterExactlyOnce() {
    Waiter w = waiter("timer");
    topic.park(w, topic.generation());
    assertThat(topic.unpark(w)).isTrue();
    assertThat(topic.unpark(w)).isFalse();
    topic.wakeOne();
    assertThat(woken).isEmpty();
  }

  @Test
  void aLockReleaseMessageStillWakesExactlyOneWaiter() {
    park(waiter("a"), waiter("b"));
    topic.deliver(WakeMessage.parse("released"));
    assertThat(woken).containsExactly("a");
  }

  @Test
  void anAllMessageWakesEveryParkedWaiterAndCountsAsOneWakeUp() {
    park(waiter("a"), waiter("b"), waiter("c"));
    long before = topic.generation();
    topic.deliver(WakeMessage.parse("all"));
    assertThat(woken).containsExactly("a", "b", "c");
    assertThat(topic.generation()).isEqualTo(before + 1);
  }

  @Test
  void aCountMessageWakesThatManyWaitersParkedLongestFirst() {
    park(waiter("a"), waiter("b"), waiter("c"));
    topic.deliver(WakeMessage.parse("2"));
    assertThat(woken).containsExactly("a", "b");
    topic.deliver(WakeMessage.parse("5")); // more than are parked: all that are
    assertThat(woken).containsExactly("a", "b", "c");
  }

  @Test
  void aNamedWaiterIsWokenFirstThenTheCountOfOthers() {
    park(named("a"), named("b"), named("head"), named("c"));
    topic.deliver(WakeMessage.parse("1 head"));
    assertThat(woken).containsExactly("head", "a");
    topic.deliver(WakeMessage.parse("0 c"));
    assertThat(woken).containsExactly("head", "a", "c");
  }

  @Test
  void aNamedWaiterParkedElsewhereLeavesOnlyTheCountToWake() {
    park(named("a"), named("b"));
    topic.deliver(WakeMessage.parse("1 in-another-process"));
    assertThat(woken).containsExactly("a");
    long before = topic.generation();
    topic.deliver(WakeMessage.parse("0 in-another-process"));
    assertThat(woken).containsExactly("a");
    assertThat(topic.generation())
        .as("still a wake-up for attempts in flight")
        .isEqualTo(before + 1);
  }

  @Test
  void anEnormousCountWakesEveryoneInsteadOfFailing() {
    park(waiter("a"), waiter("b"));
    topic.deliver(WakeMessage.parse("99999999999999999999"));
    assertThat(woken).containsExactly("a", "b");
  }
}
