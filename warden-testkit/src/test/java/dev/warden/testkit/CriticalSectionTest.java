package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class CriticalSectionTest {

  @Test
  void threadsBehindAJvmLockPassEveryCheck() throws Exception {
    CriticalSection section = new CriticalSection();
    ReentrantLock lock = new ReentrantLock();
    long[] nextToken = {0};
    StartGate.run(
        4,
        500,
        contender -> {
          lock.lock();
          try {
            section.enterWithToken(++nextToken[0]);
          } finally {
            lock.unlock();
          }
        });
    section.assertMutualExclusion(4 * 500);
    assertThat(section.counter()).isEqualTo(2_000);
    assertThat(section.maxInside()).isOne();
    assertThat(section.inside()).isZero();
    assertThat(section.tokens()).hasSize(2_000).isSorted();
  }

  @Test
  void twoThreadsInsideAtOnceAreCaughtByTheCountAndByMaxInside() throws Exception {
    // no lock, and each waits inside for the other: both read the counter before either writes
    CriticalSection section = new CriticalSection();
    CyclicBarrier bothInside = new CyclicBarrier(2);
    StartGate.run(
        2,
        1,
        contender ->
            section.enter(
                1,
                () -> {
                  try {
                    bothInside.await(20, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }));
    assertThat(section.counter()).as("one update lost").isOne();
    assertThat(section.maxInside()).isEqualTo(2);
    assertThatThrownBy(() -> section.assertMutualExclusion(2))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessage("at most 1 may be inside at once, but 2 were");
  }

  @Test
  void anEntryNestedInAnotherLosesTheOuterUpdateAndTheCountSaysSo() {
    CriticalSection section = new CriticalSection();
    section.enter(1, section::enter);
    assertThat(section.counter()).isOne();
    assertThatThrownBy(() -> section.assertNeverAbove(1))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessage("at most 1 may be inside at once, but 2 were");
    section.assertNeverAbove(2);
  }

  @Test
  void aCountBelowTheEntriesExpectedFails() {
    CriticalSection section = new CriticalSection();
    section.enter();
    section.enter();
    section.assertMutualExclusion(2);
    assertThatThrownBy(() -> section.assertMutualExclusion(3))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessage(
            "the counter is 2 but 3 entries were expected: 1 lost to overlapping holds, or never"
                + " made");
  }

  @Test
  void tokensThatFailToRiseStrictlyFailNamingTheHold() {
    CriticalSection repeated = new CriticalSection();
    repeated.enterWithToken(7);
    repeated.enterWithToken(7);
    assertThatThrownBy(() -> repeated.assertMutualExclusion(2))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessage(
            "fencing tokens must rise strictly in the order of the holds, but hold 1 got 7 after 7"
                + " (of 2 holds)");

    CriticalSection falling = new CriticalSection();
    falling.enterWithToken(3);
    falling.enterWithToken(9);
    falling.enterWithToken(8);
    assertThatThrownBy(() -> falling.assertMutualExclusion(3))
        .isExactlyInstanceOf(AssertionError.class)
        .hasMessageContaining("hold 2 got 8 after 9");
  }

  @Test
  void weightIsCountedInsideAndWorkThatThrowsLeavesTheSectionUncounted() {
    CriticalSection section = new CriticalSection();
    section.enter(3, () -> assertThat(section.inside()).isEqualTo(3));
    assertThat(section.maxInside()).isEqualTo(3);
    assertThatThrownBy(
            () ->
                section.enter(
                    1,
                    () -> {
                      throw new IllegalStateException("failed inside");
                    }))
        .hasMessage("failed inside");
    assertThat(section.inside()).isZero();
    assertThat(section.counter()).isOne();
    assertThatThrownBy(() -> section.enter(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weight must be positive: 0");
  }
}
