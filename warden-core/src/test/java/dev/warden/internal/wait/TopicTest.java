package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The wake-up protocol of one topic, without Redis: parking, wake-one order, the race guard, and
 * the lines of waiters that share their re-checks and heartbeats (in virtual time).
 */
class TopicTest {
  private static final Duration RECHECK = Duration.ofMillis(200);
  private static final String LOCK = "warden:{orders}";

  private final VirtualTime time = new VirtualTime();
  private final Topic topic = new Topic("c", time, time, RECHECK.toNanos());
  private final List<String> woken = new ArrayList<>();
  private boolean heldHere; // another owner of this client holds LOCK

  /**
   * A parked acquisition of {@link #LOCK} that shares its waiting: logs "name" when woken and
   * "name?" when re-checked by its line.
   */
  private final class InLine implements Waiter, Successor {
    final String name;
    final long order;
    final long ticket;
    final SharedWait sharing;

    InLine(String name, long order, long ticket, SharedWait sharing) {
      this.name = name;
      this.order = order;
      this.ticket = ticket;
      this.sharing = sharing;
    }

    @Override
    public void wake() {
      woken.add(name);
    }

    @Override
    public void recheck() {
      woken.add(name + "?");
    }

    @Override
    public boolean waitsForLocalHolder() {
      return heldHere;
    }

    @Override
    public String waiterId() {
      return name;
    }

    @Override
    public long order() {
      return order;
    }

    @Override
    public Successor successor() {
      return this;
    }

    @Override
    public HandOffTerms terms() {
      return new HandOffTerms(LOCK, name, 30_000, "acquisition-" + name);
    }

    @Override
    public long ticket() {
      return ticket;
    }

    @Override
    public SharedWait sharing() {
      return sharing;
    }

    @Override
    public void grant(long token, long sentAtNanos) {
      woken.add(name + " granted");
    }

    @Override
    public void handOffInDoubt() {}

    @Override
    public void reparkOrWake(Topic on, long claimedAtGeneration) {}
  }

  private InLine inLine(String name, long order) {
    return new InLine(name, order, Long.MAX_VALUE, SharedWait.RECHECKS);
  }

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

  /** The waits between a refused line's re-checks: from the recheck interval, doubling to 1 s. */
  private static final List<Duration> BACKING_OFF =
      List.of(
          Duration.ofMillis(200),
          Duration.ofMillis(400),
          Duration.ofMillis(800),
          Duration.ofSeconds(1),
          Duration.ofSeconds(1),
          Duration.ofSeconds(1));

  @Test
  void aLineOfAnySizeRechecksWithItsFirstWaiterOnlyBackingOffToOncePerSecond() {
    for (int size : new int[] {1, 100, 1000}) {
      woken.clear();
      List<InLine> line = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        InLine waiter = inLine("w" + size + "-" + i, i);
        line.add(waiter);
        assertThat(topic.park(waiter, topic.generation())).isTrue();
      }
      for (int round = 1; round <= BACKING_OFF.size(); round++) {
        time.advance(BACKING_OFF.get(round - 1).minusNanos(1));
        assertThat(woken).as("before round " + round + " of " + size).hasSize(round - 1);
        time.advance(Duration.ofNanos(1));
        assertThat(woken).as("round " + round + " of " + size).hasSize(round);
        assertThat(woken.get(round - 1)).isEqualTo("w" + size + "-0?");
        assertThat(topic.parkedCount()).isEqualTo(size - 1);
        // refused: it goes back to the front, and the others never asked
        assertThat(topic.park(line.get(0), topic.generation())).isTrue();
      }
      assertThat(time.pending()).as("one timer for the whole line").isOne();
      for (InLine waiter : line) {
        topic.unpark(waiter);
      }
      assertThat(time.pending()).as("an empty line has no timer").isZero();
    }
  }

  @Test
  void whenTheFirstWaiterDoesNotComeBackTheNextOneRechecksWhenTheLineWouldHaveAndStartsAgain() {
    InLine a = inLine("a", 0);
    InLine b = inLine("b", 1);
    park(a, b);
    time.advance(RECHECK);
    assertThat(woken).containsExactly("a?"); // a got the lock: it does not park again
    time.advance(RECHECK.multipliedBy(2).minusNanos(1));
    assertThat(woken).containsExactly("a?");
    time.advance(Duration.ofNanos(1));
    assertThat(woken).as("the line's next re-check").containsExactly("a?", "b?");
    park(b);
    time.advance(RECHECK);
    assertThat(woken)
        .as("a new first waiter: its back-off starts from the recheck interval")
        .containsExactly("a?", "b?", "b?");
  }

  /** Parks {@code a} alone, and has it refused at each re-check until the line waits 1 s. */
  private InLine backedOff() {
    InLine a = inLine("a", 0);
    park(a);
    for (int round = 0; round < 4; round++) {
      time.advance(BACKING_OFF.get(round));
      assertThat(woken).hasSize(round + 1);
      park(a);
    }
    assertThat(topic.line(LOCK).intervalNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    woken.clear();
    return a;
  }

  /** Asserts the line's next re-check comes one recheck interval from now, not later. */
  private void nextRecheckIsOneIntervalAway(String first) {
    time.advance(RECHECK.minusNanos(1));
    assertThat(woken).isEmpty();
    time.advance(Duration.ofNanos(1));
    assertThat(woken).containsExactly(first + "?");
    woken.clear();
  }

  @Test
  void aWakeUpForTheTopicTakesTheBackOffBackToTheRecheckInterval() {
    InLine a = backedOff();
    park(inLine("b", 1)); // keeps the line while a is out
    topic.deliver(WakeMessage.parse("released"));
    assertThat(woken).containsExactly("a");
    woken.clear();
    park(a); // refused again: someone else took it
    nextRecheckIsOneIntervalAway("a");
    park(a);
    time.advance(RECHECK.multipliedBy(2));
    assertThat(woken).as("and it backs off again").containsExactly("a?");
  }

  @Test
  void aWakeUpForAnotherWaiterOfTheLineAlsoResetsTheBackOff() {
    backedOff();
    InLine b = inLine("b", 1);
    park(b);
    topic.deliver(WakeMessage.parse("w:b"));
    assertThat(woken).containsExactly("b");
    woken.clear();
    nextRecheckIsOneIntervalAway("a");
  }

  @Test
  void aResubscriptionResetsTheBackOff() {
    InLine a = backedOff();
    park(inLine("b", 1)); // keeps the line while a is out
    topic.resubscribed();
    assertThat(woken).containsExactly("a");
    woken.clear();
    park(a);
    nextRecheckIsOneIntervalAway("a");
  }

  @Test
  void aLocalHandOffResetsTheBackOffForTheNextInLine() {
    InLine a = backedOff();
    InLine b = inLine("b", 1);
    park(b);
    assertThat(topic.claim(LOCK)).isSameAs(a);
    nextRecheckIsOneIntervalAway("b");
  }

  @Test
  void aNewFirstWaiterResetsTheBackOff() {
    SharedWait queued = new SharedWait() {};
    InLine late = new InLine("late", 0, 9, queued);
    park(late);
    for (int round = 0; round < 4; round++) {
      time.advance(BACKING_OFF.get(round));
      park(late);
    }
    woken.clear();
    park(new InLine("early", 1, 3, queued)); // ahead of it in the object's queue
    nextRecheckIsOneIntervalAway("early");
  }

  @Test
  void theHoldersRemainingLeaseStillBringsTheRecheckEarlier() {
    InLine a = backedOff();
    time.advance(Duration.ofMillis(100));
    topic.unpark(a);
    topic.park(inLine("keep-the-line", 1), topic.generation());
    long at = time.nanoTime();
    assertThat(topic.restore(a, topic.generation(), () -> true, Duration.ofMillis(30).toNanos()))
        .isTrue();
    assertThat(time.dueTimes()).containsExactly(at + Duration.ofMillis(30).toNanos());
  }

  @Test
  void aRecheckIntervalAboveTheCapIsKeptAsItIs() {
    Topic slow = new Topic("slow", time, time, Duration.ofSeconds(5).toNanos());
    InLine a = inLine("a", 0);
    assertThat(slow.park(a, slow.generation())).isTrue();
    for (int round = 1; round <= 4; round++) {
      time.advance(Duration.ofSeconds(5).minusNanos(1));
      assertThat(woken).hasSize(round - 1);
      time.advance(Duration.ofNanos(1));
      assertThat(woken).hasSize(round);
      assertThat(slow.park(a, slow.generation())).isTrue();
    }
  }

  @Test
  void aLineWhoseOnlyWaiterDoesNotComeBackEndsAtItsNextRecheck() {
    InLine a = backedOff();
    time.advance(Duration.ofSeconds(1));
    assertThat(woken).containsExactly("a?"); // and it got the lock
    assertThat(topic.line(LOCK)).as("waiting for it").isNotNull();
    assertThat(time.pending()).isOne();
    time.advance(Duration.ofSeconds(1));
    assertThat(topic.line(LOCK)).isNull();
    assertThat(time.pending()).isZero();
    woken.clear();
    park(a); // a later wait starts a new line, from the recheck interval
    nextRecheckIsOneIntervalAway("a");
  }

  @Test
  void whileAnotherOwnerOfThisClientHoldsTheLockTheLineKeepsItsFirstWaiterParkedForTheHandOff() {
    InLine a = inLine("a", 0);
    InLine b = inLine("b", 1);
    park(a, b);
    heldHere = true;
    time.advance(RECHECK.multipliedBy(5));
    assertThat(woken).as("nobody asks Redis").isEmpty();
    assertThat(topic.parkedCount()).isEqualTo(2);
    assertThat(time.pending()).as("the line's timer goes on").isOne();
    // the holder's release hands over to the first, which a re-check never took off the line
    assertThat(topic.claim(LOCK)).isSameAs(a);
    heldHere = false;
    time.advance(RECHECK);
    assertThat(woken).containsExactly("b?");
  }

  /**
   * A local holder's explicit lease that runs out (or its loss) is published by nobody, and the
   * first waiter, parked for the hand-off, never asked Redis for the holder's remaining lease: the
   * line, which asks nobody meanwhile, keeps looking at the recheck interval instead of backing
   * off.
   */
  @Test
  void whileTheFirstWaiterWaitsForALocalHolderTheLineDoesNotBackOff() {
    InLine a = inLine("a", 0);
    heldHere = true;
    park(a);
    time.advance(Duration.ofMillis(4_900));
    assertThat(woken).isEmpty();
    heldHere = false; // its explicit lease ran out: nothing in Redis, nothing published
    time.advance(RECHECK);
    assertThat(woken).containsExactly("a?");
  }

  @Test
  void aShorterRecheckAskedByAParkingWaiterMovesTheLinesTimerEarlierButNeverLater() {
    InLine a = inLine("a", 0);
    InLine b = inLine("b", 1);
    park(a);
    long parkedAt = time.nanoTime();
    assertThat(topic.restore(b, topic.generation(), () -> true, Duration.ofMillis(50).toNanos()))
        .isTrue();
    assertThat(time.dueTimes()).containsExactly(parkedAt + Duration.ofMillis(50).toNanos());
    topic.unpark(b);
    assertThat(topic.restore(b, topic.generation(), () -> true, Duration.ofSeconds(5).toNanos()))
        .isTrue();
    assertThat(time.dueTimes()).containsExactly(parkedAt + Duration.ofMillis(50).toNanos());
    time.advance(Duration.ofMillis(50));
    assertThat(woken).as("the line's first re-checks, whoever asked").containsExactly("a?");
  }

  @Test
  void aClaimTakesTheLinesFirstInTicketOrderThenInWaitingOrder() {
    SharedWait queued = new SharedWait() {};
    InLine late = new InLine("late", 0, 9, queued);
    InLine early = new InLine("early", 5, 3, queued);
    InLine tie = new InLine("tie", 1, 9, queued);
    park(late, tie, early);
    assertThat(topic.claim(LOCK)).isSameAs(early);
    assertThat(topic.claim(LOCK)).isSameAs(late);
    assertThat(topic.claim("warden:{another}")).isNull();
    assertThat(topic.claim(LOCK)).isSameAs(tie);
    assertThat(topic.claim(LOCK)).isNull();
    assertThat(time.pending()).isZero();
  }

  @Test
  void aWaiterThatParksAgainKeepsItsPlaceWhateverTheOrderTheyComeBackIn() {
    InLine a = inLine("a", 0);
    InLine b = inLine("b", 1);
    InLine c = inLine("c", 2);
    InLine d = inLine("d", 3);
    park(a, b, c, d);
    topic.deliver(WakeMessage.parse("3"));
    assertThat(woken).containsExactly("a", "b", "c");
    park(c, a, b); // refused again, in another order than they were woken
    woken.clear();
    topic.wakeAll();
    assertThat(woken).containsExactly("a", "b", "c", "d");
  }

  @Test
  void aResubscriptionWakesEveryWaiterOutsideALineAndOnlyTheFirstOfEachLine() {
    park(inLine("a", 0), waiter("alone"), inLine("b", 2));
    long before = topic.generation();
    topic.resubscribed();
    assertThat(woken).containsExactly("a", "alone");
    assertThat(topic.parkedCount()).isOne();
    assertThat(topic.generation()).isEqualTo(before + 1);
  }

  @Test
  void aTargetedWakeUpFindsItsWaiterAmongAThousand() {
    for (int i = 0; i < 1000; i++) {
      park(inLine("w" + i, i));
    }
    topic.deliver(WakeMessage.parse("w:w777"));
    assertThat(woken).containsExactly("w777");
    assertThat(topic.parkedCount()).isEqualTo(999);
    assertThat(((InLine) topic.claim(LOCK)).name).isEqualTo("w0");
  }

  @Test
  void aLineWithHeartbeatsSendsOneForItsOtherParkedWaitersPerPeriodAndWakesThoseGone() {
    List<List<String>> beats = new ArrayList<>();
    List<CompletableFuture<List<Integer>>> replies = new ArrayList<>();
    SharedWait heartbeats =
        new SharedWait() {
          @Override
          public long heartbeatNanos() {
            return Duration.ofSeconds(1).toNanos();
          }

          @Override
          public CompletableFuture<List<Integer>> heartbeat(List<Successor> parked) {
            beats.add(parked.stream().map(s -> s.terms().owner()).toList());
            CompletableFuture<List<Integer>> reply = new CompletableFuture<>();
            replies.add(reply);
            return reply;
          }
        };
    InLine head = new InLine("head", 0, 1, heartbeats);
    InLine second = new InLine("second", 1, 2, heartbeats);
    InLine third = new InLine("third", 2, 3, heartbeats);
    park(head, second, third);
    time.advance(Duration.ofMillis(200)); // re-checks at 200 and 600 ms (backing off)
    assertThat(topic.park(head, topic.generation())).isTrue();
    time.advance(Duration.ofMillis(400));
    assertThat(topic.park(head, topic.generation())).isTrue();
    time.advance(Duration.ofMillis(400).minusNanos(1));
    assertThat(beats).as("none before a period").isEmpty();
    time.advance(Duration.ofNanos(1));
    assertThat(beats).containsExactly(List.of("head", "second", "third"));
    assertThat(woken).containsExactly("head?", "head?");
    replies.get(0).complete(List.of(2)); // third's entry was dropped
    assertThat(woken).endsWith("third");
    assertThat(topic.parkedCount()).as("third asks for itself").isEqualTo(2);
    time.advance(Duration.ofMillis(400)); // the re-check at 1.4 s
    assertThat(woken).endsWith("head?");
    time.advance(Duration.ofMillis(600));
    assertThat(beats)
        .as("on time while the head is out re-checking")
        .containsExactly(List.of("head", "second", "third"), List.of("second"));
    assertThat(topic.park(head, topic.generation())).isTrue();
    for (int period = 3; period <= 6; period++) {
      time.advance(Duration.ofSeconds(1));
      assertThat(topic.park(head, topic.generation())).isTrue();
      assertThat(beats).as("one per period whatever the back-off").hasSize(period);
    }
  }
}
