package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChaosCheckerTest {
  private static final long MS = 1_000_000L;

  @Test
  void sectionsOneAfterAnotherWithRisingTokensPass() {
    ChaosChecker checker = new ChaosChecker();
    section(checker, 1, "a", 5, 0, 10);
    section(checker, 2, "b", 6, 20, 30);

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.writesAccepted()).isEqualTo(4);
    assertThat(report.acquisitions()).isEqualTo(2);
  }

  @Test
  void aTokenIssuedTwiceIsAViolationEvenWithoutOverlap() {
    ChaosChecker checker = new ChaosChecker();
    section(checker, 1, "a", 5, 0, 10);
    section(checker, 2, "b", 5, 20, 30);

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("token 5 of chaos-lock was issued to a and to b");
  }

  @Test
  void overlappingSectionsWithTheSameTokenAreAcceptedByTheResourceAndReported() {
    ChaosChecker checker = new ChaosChecker();
    section(checker, 1, "a", 5, 0, 20);
    section(checker, 2, "b", 5, 10, 30);

    assertThat(checker.check().violations())
        .anySatisfy(v -> assertThat(v).contains("accepted overlapping sections of a"));
  }

  @Test
  void aStaleHolderIsRejectedByTheResourceAndMustHaveBeenTold() {
    ChaosChecker checker = new ChaosChecker();
    section(checker, 1, "a", 5, 0, 20); // its last write comes after b's first: rejected
    section(checker, 2, "b", 6, 10, 15);

    ChaosChecker.Report report = checker.check();

    assertThat(report.writesRejected()).isEqualTo(1);
    assertThat(report.leasesLost()).isEqualTo(1);
    assertThat(report.violations())
        .singleElement()
        .asString()
        .contains("lost lease not reported to its holder: chaos-lock a");
  }

  @Test
  void aStaleHolderThatWasToldIsNoViolation() {
    ChaosChecker checker = new ChaosChecker();
    section(checker, 1, "a", 5, 0, 20);
    section(checker, 2, "b", 6, 10, 15);
    checker.event(1, 25 * MS + " L chaos-lock a");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.leasesLostReported()).isEqualTo(1);
  }

  @Test
  void aWaitPastItsBoundIsAViolationUnlessItsProcessWasStopped() {
    ChaosChecker late = new ChaosChecker();
    late.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout");
    assertThat(late.check().violations())
        .singleElement()
        .asString()
        .contains("took 5000 ms, above its bound of 2500 ms");

    ChaosChecker stopped = new ChaosChecker();
    stopped.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout");
    stopped.event(0, 1000 * MS + " F " + 4000 * MS + " stop-worker false 1 SIGSTOP");
    assertThat(stopped.check().violations()).isEmpty();
  }

  @Test
  void moreConfirmedHoldersThanPermitsIsAViolation() {
    ChaosChecker checker = new ChaosChecker();
    for (int holder = 0; holder < 3; holder++) {
      checker.event(1, (holder + 1) * MS + " P chaos-leased h" + holder);
      checker.event(1, 10 * MS + " Q chaos-leased h" + holder + " ok");
    }

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("3 holders of chaos-leased at once, above its 2 permits");
  }

  @Test
  void morePlainHoldersThanPermitsIsAViolationBeforeAnyFaultThatLosesData() {
    ChaosChecker checker = new ChaosChecker();
    for (int holder = 0; holder < 4; holder++) {
      checker.event(1, (holder + 1) * MS + " P chaos-semaphore h" + holder);
      checker.event(1, 50 * MS + " Q chaos-semaphore h" + holder + " ok");
    }
    checker.event(0, 60 * MS + " F " + 70 * MS + " restart true - restarted");

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("4 holders of chaos-semaphore at once, above its 3 permits");
  }

  @Test
  void plainPermitsAreNotCountedOnceAFaultLostRedisData() {
    ChaosChecker checker = new ChaosChecker();
    for (int holder = 0; holder < 6; holder++) {
      long at = holder < 3 ? 1 : 30;
      checker.event(1, at * MS + " P chaos-semaphore h" + holder);
      checker.event(1, 50 * MS + " Q chaos-semaphore h" + holder + " ok");
    }
    checker.event(0, 10 * MS + " F " + 20 * MS + " restart true - restarted");

    assertThat(checker.check().violations()).isEmpty();
  }

  @Test
  void aLeakOrAnUnexpectedExceptionInAWorkerIsAViolation() {
    ChaosChecker checker = new ChaosChecker();
    checker.event(2, 1 + " K WardenStats[holds=1]");
    checker.event(2, 2 + " U 3 java.lang.NullPointerException");

    assertThat(checker.check().violations()).hasSize(2);
  }

  private static void section(
      ChaosChecker checker, int worker, String holder, long token, long from, long to) {
    checker.event(worker, (from * MS - 1) + " A chaos-lock " + (from * MS - 2) + " 2000 got");
    checker.event(worker, from * MS + " T chaos-lock " + holder + " " + token);
    checker.event(worker, from * MS + " W chaos-lock " + holder + " " + token);
    checker.event(worker, to * MS + " W chaos-lock " + holder + " " + token);
    checker.event(worker, (to * MS + 1) + " R chaos-lock " + holder + " ok");
  }
}
