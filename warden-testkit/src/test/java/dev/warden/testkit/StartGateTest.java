package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class StartGateTest {

  @Test
  void everyContenderRunsEveryRoundOnAThreadOfItsOwn() throws Exception {
    AtomicIntegerArray roundsRun = new AtomicIntegerArray(5);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    StartGate.run(
        5,
        40,
        contender -> {
          roundsRun.incrementAndGet(contender);
          threads.add(Thread.currentThread().getName() + "/" + contender);
        });
    for (int c = 0; c < 5; c++) {
      assertThat(roundsRun.get(c)).as("rounds of contender %d", c).isEqualTo(40);
    }
    assertThat(threads)
        .containsExactlyInAnyOrder(
            "start-gate-0/0",
            "start-gate-1/1",
            "start-gate-2/2",
            "start-gate-3/3",
            "start-gate-4/4");
  }

  @Test
  void allContendersAreAtWorkAtTheSameTime() throws Exception {
    // each first round waits for all the others to be in theirs: contenders run one after
    // another would never get past it
    CountDownLatch allIn = new CountDownLatch(6);
    StartGate.run(
        6,
        1,
        Duration.ofSeconds(30),
        contender -> {
          allIn.countDown();
          if (!allIn.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the others never came in");
          }
        });
    assertThat(allIn.getCount()).isZero();
  }

  @Test
  void aFailingRoundFailsTheRunAtOnceNamingItAndInterruptsTheOthers() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch othersInRound = new CountDownLatch(3);
    CountDownLatch othersInterrupted = new CountDownLatch(3);
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                StartGate.run(
                    4,
                    10,
                    Duration.ofSeconds(60),
                    contender -> {
                      if (contender == 2) {
                        // fail only once the others are inside their rounds: one interrupted
                        // while still leaving the gate would never reach the round to count it
                        othersInRound.await();
                        throw new IOException("broken on purpose");
                      }
                      othersInRound.countDown();
                      try {
                        never.await();
                      } catch (InterruptedException e) {
                        othersInterrupted.countDown();
                        throw e;
                      }
                    }))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessageStartingWith("contender 2 failed in round 0 of 10: ")
        .hasMessageContaining("broken on purpose")
        .cause()
        .isExactlyInstanceOf(IOException.class);
    assertThat(othersInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(30);
  }

  @Test
  void aRunPastItsTimeLimitFailsNamingTheContendersStillAtWork() {
    CountDownLatch never = new CountDownLatch(1);
    assertThatThrownBy(
            () ->
                StartGate.run(
                    3,
                    5,
                    Duration.ofMillis(300),
                    contender -> {
                      if (contender == 1) {
                        never.await();
                      }
                    }))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessage("contenders still at work after PT0.3S: 1 (round 0 of 5)");
  }

  @Test
  void badArgumentsAreRejectedNamingThem() {
    StartGate.Round nothing = contender -> {};
    assertThatThrownBy(() -> StartGate.run(0, 1, nothing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("contenders must be positive: 0");
    assertThatThrownBy(() -> StartGate.run(1, -1, nothing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rounds must not be negative: -1");
    assertThatThrownBy(() -> StartGate.run(1, 1, Duration.ZERO, nothing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeLimit must be positive: PT0S");
  }
}
