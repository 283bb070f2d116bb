package dev.warden.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wake-up protocol of one topic, without Redis: parking, wake-one order, the race guard. */
class TopicTest {
  private final WakeUps.Topic topic = new WakeUps.Topic("c");
  private final List<String> woken = new ArrayList<>();

  private WakeUps.Waiter waiter(String name) {
    return () -> woken.add(name);
  }

  private WakeUps.Waiter waiterWithId(String id) {
    return new WakeUps.Waiter() {
      @Override
      public void wake() {
        woken.add(id);
      }

      @Override
      public String waiterId() {
        return id;
      }
    };
  }

  @Test
  void aTargetedMessageWakesOnlyThatWaiter() {
    topic.park(waiterWithId("a"), topic.generation());
    topic.park(waiterWithId("b"), topic.generation());
    topic.wake("w:b");
    assertThat(woken).containsExactly("b");
    topic.wake("w:nobody-here");
    assertThat(woken).containsExactly("b");
  }

  @Test
  void aTargetedWakeUpForAWaiterWhoseAttemptIsInFlightIsKeptForItsNextPark() {
    topic.wake("w:a"); // arrives before a's failed attempt returns
    assertThat(topic.park(waiterWithId("a"), topic.generation())).isFalse();
    assertThat(topic.park(waiterWithId("a"), topic.generation())).isTrue();
  }

  @Test
  void untargetedWakeUpsDoNotDisturbTargetedWaitersOrder() {
    topic.park(waiter("plain"), topic.generation());
    topic.wake("*");
    assertThat(woken).containsExactly("plain");
    topic.park(waiter("again"), topic.generation());
    topic.wake("released");
    assertThat(woken).containsExactly("plain", "again");
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
    WakeUps.Waiter w = waiter("timer");
    topic.park(w, topic.generation());
    assertThat(topic.unpark(w)).isTrue();
    assertThat(topic.unpark(w)).isFalse();
    topic.wakeOne();
    assertThat(woken).isEmpty();
  }
}
