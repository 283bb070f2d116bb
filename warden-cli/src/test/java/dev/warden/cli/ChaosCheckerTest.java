package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The chaos checker on synthetic logs: each violation class is caught, and losses a fault explains
 * are not flagged. Times are in milliseconds from the start of the log.
 */
class ChaosCheckerTest {
  private static final long MS = 1_000_000L;

  private final ChaosChecker checker = new ChaosChecker();

  @Test
  void sectionsOneAfterAnotherWithRisingTokensPass() {
    section(1, "w1.0.0", 5, 0, 10);
    section(2, "w2.0.0", 6, 20, 30);

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.writesAccepted()).isEqualTo(6);
    assertThat(report.acquisitions()).isEqualTo(2);
    assertThat(report.sections().sections()).isEqualTo(2);
  }

  @Test
  void aTokenIssuedTwiceIsAViolationEvenWithoutOverlap() {
    section(1, "w1.0.0", 5, 0, 10);
    section(2, "w2.0.0", 5, 20, 30);

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("token 5 of chaos-lock was issued to w1.0.0 and to w2.0.0");
  }

  @Test
  void aDoubleGrantWithoutAFaultIsTwoHoldersEvenWhenTheLoserWasTold() {
    // The review's example: B gets the lock A holds, with a higher token; A's next write is
    // refused, and A's release says its lease was lost. Before, that passed as "lost, reported".
    log(1, 1000, "T chaos-lock w1.0.0 100");
    log(1, 1100, "W chaos-lock w1.0.0 100 1");
    log(2, 1200, "T chaos-lock w2.0.0 200");
    log(2, 1300, "W chaos-lock w2.0.0 200 1");
    log(1, 1400, "W chaos-lock w1.0.0 100 2");
    log(2, 1500, "W chaos-lock w2.0.0 200 2");
    log(2, 1600, "R chaos-lock w2.0.0 ok 2");
    log(1, 1700, "R chaos-lock w1.0.0 lost 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .startsWith("two holders without a fault: chaos-lock held by writer w1.0.0 (token 100)")
        .contains("and by writer w2.0.0 (token 200) from 0.200 s (seen at 0.400 s)");
    assertThat(report.leasesLost()).isEqualTo(1);
    assertThat(report.leasesLostReported()).isEqualTo(1);
    assertThat(report.sections().explained()).isZero();
  }

  @Test
  void aGrantDuringAnotherSectionIsCaughtEvenWhenEveryWriteWasAccepted() {
    // Rising tokens and no interleaved writes: the resource accepts all of them, but B acquired
    // the lock (at 20) while A still held it (A wrote at 30).
    log(1, 0, "T chaos-fair w1.0.0 5");
    log(1, 1, "W chaos-fair w1.0.0 5 1");
    log(2, 20, "T chaos-fair w2.0.0 6");
    log(1, 30, "W chaos-fair w1.0.0 5 2");
    log(1, 31, "R chaos-fair w1.0.0 ok 2");
    log(2, 40, "W chaos-fair w2.0.0 6 1");
    log(2, 41, "W chaos-fair w2.0.0 6 2");
    log(2, 42, "R chaos-fair w2.0.0 ok 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.writesRejected()).isZero();
    assertThat(report.violations())
        .anySatisfy(v -> assertThat(v).startsWith("two holders without a fault: chaos-fair"))
        .anySatisfy(
            v ->
                assertThat(v)
                    .isEqualTo("lost lease not reported to its holder: chaos-fair w1.0.0"));
  }

  /**
   * The 30-minute run of 2026-11-27 (single, 665 s): worker 1's grant came back just before its
   * process was stopped for 4 s, so it logged its token after worker 2, granted the freed lock
   * later, logged its own. The lower token is the lease that ended, explained by the stop; the
   * section with the higher token lost nothing.
   */
  @Test
  void aHolderWhoseGrantIsLoggedLateByItsStoppedWorkerIsTheOneThatLostTheLease() {
    log(1, 0, "A chaos-lock " + 0 + " 2000 got w1.2.7");
    fault(5, 4_005, "stop-worker", "false", "1");
    log(2, 4_000, "T chaos-lock w2.0.9 200");
    log(2, 4_001, "W chaos-lock w2.0.9 200 1");
    log(1, 4_010, "T chaos-lock w1.2.7 100"); // granted before the stop, logged after it
    log(1, 4_011, "W chaos-lock w1.2.7 100 1"); // refused: 200 was written
    log(1, 4_012, "L chaos-lock w1.2.7");
    log(2, 4_020, "W chaos-lock w2.0.9 200 2");
    log(2, 4_021, "R chaos-lock w2.0.9 ok 2");
    log(1, 4_030, "W chaos-lock w1.2.7 100 2");
    log(1, 4_031, "R chaos-lock w1.2.7 lost 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.leasesLost()).isEqualTo(1);
    assertThat(report.leasesLostReported()).isEqualTo(1);
    assertThat(report.sections().explained()).isEqualTo(1);
  }

  @Test
  void aLowerTokenLoggedLateWithoutAFaultIsTwoHoldersNamingItsSection() {
    log(2, 4_000, "T chaos-lock w2.0.9 200");
    log(2, 4_001, "W chaos-lock w2.0.9 200 1");
    log(1, 4_010, "T chaos-lock w1.2.7 100");
    log(1, 4_011, "W chaos-lock w1.2.7 100 1");
    log(1, 4_012, "L chaos-lock w1.2.7");
    log(2, 4_020, "W chaos-lock w2.0.9 200 2");
    log(2, 4_021, "R chaos-lock w2.0.9 ok 2");
    log(1, 4_031, "R chaos-lock w1.2.7 lost 1");

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .startsWith(
            "two holders without a fault: chaos-lock held by writer w1.2.7 (token 100) from 0.010 s"
                + " and by writer w2.0.9 (token 200) from 0.000 s");
  }

  @Test
  void aReaderInsideAWritersSectionIsAViolation() {
    log(1, 0, "T chaos-rw w1.0.0 5");
    log(1, 1, "W chaos-rw w1.0.0 5 1");
    log(2, 10, "T chaos-rw-read w2.0.0 6");
    log(2, 11, "V chaos-rw w2.0.0 6 1");
    log(2, 12, "V chaos-rw w2.0.0 6 2");
    log(2, 13, "R chaos-rw-read w2.0.0 ok 2");
    log(1, 50, "W chaos-rw w1.0.0 5 2"); // refused: a reader with a later token read meanwhile
    log(1, 51, "L chaos-rw w1.0.0");
    log(1, 52, "R chaos-rw w1.0.0 lost 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.writesRejected()).isEqualTo(1);
    assertThat(report.violations())
        .singleElement()
        .asString()
        .startsWith(
            "a reader inside a writer's section without a fault: chaos-rw held by writer w1.0.0");
  }

  @Test
  void aStaleReadIsAReaderInsideAWritersSection() {
    log(1, 0, "T chaos-rw-read w1.0.0 5");
    log(1, 1, "V chaos-rw w1.0.0 5 1");
    log(2, 10, "T chaos-rw w2.0.0 6");
    log(2, 11, "W chaos-rw w2.0.0 6 1");
    log(2, 12, "W chaos-rw w2.0.0 6 2");
    log(2, 13, "R chaos-rw w2.0.0 ok 2");
    log(1, 20, "V chaos-rw w1.0.0 5 2"); // stale: a later writer has written
    log(1, 21, "L chaos-rw-read w1.0.0");
    log(1, 22, "R chaos-rw-read w1.0.0 lost 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.sections().readsStale()).isEqualTo(1);
    assertThat(report.violations())
        .singleElement()
        .asString()
        .startsWith(
            "a reader inside a writer's section without a fault: chaos-rw held by reader w1.0.0");
  }

  @Test
  void readersTogetherAndAWriterAfterThemPass() {
    log(1, 0, "T chaos-rw-read w1.0.0 5");
    log(2, 1, "T chaos-rw-read w2.0.0 6");
    log(2, 2, "V chaos-rw w2.0.0 6 1");
    log(1, 3, "V chaos-rw w1.0.0 5 1");
    log(1, 4, "V chaos-rw w1.0.0 5 2");
    log(2, 5, "V chaos-rw w2.0.0 6 2");
    log(1, 6, "R chaos-rw-read w1.0.0 ok 2");
    log(2, 7, "R chaos-rw-read w2.0.0 ok 2");
    log(1, 10, "T chaos-rw w1.0.1 7");
    log(1, 11, "W chaos-rw w1.0.1 7 1");
    log(1, 12, "W chaos-rw w1.0.1 7 2");
    log(1, 13, "R chaos-rw w1.0.1 ok 2");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.sections().readsGood()).isEqualTo(4);
    assertThat(report.sections().readSections()).isEqualTo(2);
  }

  @Test
  void aLossThatAFaultExplainsButNobodyToldIsUnreported() {
    doubleGrant("error");
    fault(1100, 1150, "restart", "empty", "-");

    List<String> violations = checker.check().violations();

    assertThat(violations)
        .containsExactly(
            "lost lease not reported to its holder: chaos-lock w1.0.0"
                + " (its release failed, which is no report)");
  }

  @Test
  void aReleaseThatFailedIsCountedApartAndNotAsAReport() {
    doubleGrant("error");
    fault(1100, 1150, "restart", "empty", "-");

    ChaosChecker.Report report = checker.check();

    assertThat(report.leasesLostReported()).isZero();
    assertThat(report.sections().failedReleaseOnly()).isEqualTo(1);
    assertThat(report.sections().explained()).isEqualTo(1);
  }

  @Test
  void aLeaseLostWithoutAnotherHolderOrAFaultIsAViolation() {
    log(1, 0, "T chaos-lock w1.0.0 5");
    log(1, 1, "W chaos-lock w1.0.0 5 1");
    log(1, 2, "W chaos-lock w1.0.0 5 2");
    log(1, 3, "R chaos-lock w1.0.0 lost 2");

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .startsWith("lease lost without a fault: chaos-lock w1.0.0 (token 5)");
  }

  @ParameterizedTest(name = "{0} explains the loss")
  @CsvSource({
    "restart, empty, -",
    "restart-snapshot, true, -",
    "freeze, false, -",
    "failover, true, -", // Sentinel's: the old master takes writes until it is demoted
    "failover-lose-writes, true, -",
    "kill-master, true, -",
    "failover-force, true, -",
    "partition-master, false, -",
    "isolate-master, true, -",
    "partition, false, 1",
    "cut, false, 1",
    "stop-worker, false, 1",
  })
  void aLossDuringAFaultThatCanTakeTheLeaseIsNoViolation(String kind, String data, String worker) {
    doubleGrant("lost");
    fault(900, 1050, kind, data, worker);

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.sections().explained()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0} (worker {2}) does not explain the loss")
  @CsvSource({
    "pubsub-kill, false, -",
    "failover, false, -", // Cluster's graceful failover keeps every write
    "partition, false, 2", // of the other worker
    "stop-worker, false, 2",
  })
  void aLossDuringAFaultThatCannotTakeTheLeaseIsTwoHolders(
      String kind, String data, String worker) {
    doubleGrant("lost");
    fault(900, 1050, kind, data, worker);

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .startsWith("two holders without a fault");
  }

  @Test
  void aFaultExplainsLossesForOneLeaseAfterItEndsAndNoLonger() {
    doubleGrant("lost"); // worker 1 acquires at 1000 ms (its call began at 990)
    long lease = ChaosChecker.AFTERMATH.toMillis();
    fault(900 - lease - 10, 980 - lease, "restart", "empty", "-"); // ended a lease + 10 ms before

    assertThat(checker.check().violations()).singleElement().asString().startsWith("two holders");

    ChaosChecker within = new ChaosChecker();
    doubleGrant(within, "lost");
    within.event(0, (900 - lease) * MS + " F " + (1000 - lease) * MS + " restart empty - x");
    assertThat(within.check().violations()).isEmpty();
  }

  @Test
  void aLossDuringAPauseOfItsWorkerAsLongAsTheRenewalSlackIsExplainedAndCounted() {
    // The renewal slack: the 3 s lease less the watchdog's period, a third of it.
    pausedHolderLosesTheLock(checker, 2000);

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.sections().explained()).isEqualTo(1);
    assertThat(report.sections().explainedByPause()).isEqualTo(1);
    assertThat(report.pauses().lengthy())
        .singleElement()
        .satisfies(
            pause -> assertThat(ChaosPauses.describe(pause)).isEqualTo("worker paused 2000 ms"));
    assertThat(report.pauses().described(report.origin()))
        .containsExactly("worker paused 2000 ms (worker 1 at 0.020 s)");
    assertThat(report.faults()).isEmpty(); // a pause is observed, not injected
  }

  @Test
  void aLossDuringAShorterPauseOrAPauseOfAnotherWorkerIsTwoHolders() {
    pausedHolderLosesTheLock(checker, 1999);

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .startsWith("two holders without a fault: chaos-lock held by writer w1.0.0 (token 5)");
    assertThat(report.pauses().lengthy()).isEmpty();
    assertThat(report.pauses().shorter()).isEqualTo(1);
    assertThat(report.pauses().longestShorterMillis()).isEqualTo(1999);

    ChaosChecker other = new ChaosChecker(); // worker 2, the one that got in, was paused
    pausedHolderLosesTheLock(other, 0);
    other.event(2, 3000 * MS + " H " + 500 * MS + " heartbeat");
    assertThat(other.check().violations()).singleElement().asString().startsWith("two holders");
  }

  @Test
  void aLateHeartbeatAndTheCollectionInsideItAreOnePause() {
    // 1.2 s late, then a 1 s collection that overlaps it: one pause of 2.1 s, past the slack.
    pausedHolderLosesTheLock(checker, 0);
    log(1, 1220, "H " + 20 * MS + " heartbeat");
    log(1, 2120, "H " + 1120 * MS + " gc:MarkSweepCompact:Allocation_Failure");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.pauses().described(report.origin()))
        .containsExactly("worker paused 2100 ms (worker 1 at 0.020 s)");
  }

  @Test
  void aPauseDuringAStopOfItsWorkerIsTheStopsAndNotCountedAgain() {
    pausedHolderLosesTheLock(checker, 4000);
    fault(15, 4030, "stop-worker", "false", "1");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.sections().explainedByPause()).isZero();
    assertThat(report.pauses().lengthy()).isEmpty();
    assertThat(report.pauses().shorter()).isZero();
  }

  @Test
  void theTimeItsProcessWasPausedDoesNotCountInAWait() {
    ChaosChecker paused = new ChaosChecker();
    paused.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout w1.0.0");
    paused.event(1, 3000 * MS + " H " + 1000 * MS + " heartbeat"); // 2 s paused: 3 s of waiting
    ChaosChecker.Report report = paused.check();
    assertThat(report.violations()).isEmpty();
    assertThat(report.longestWaitMillis()).isEqualTo(3000);

    ChaosChecker briefly = new ChaosChecker(); // 0.4 s paused: 4.6 s of waiting, past 4 s
    briefly.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout w1.0.0");
    briefly.event(1, 1400 * MS + " H " + 1000 * MS + " heartbeat");
    assertThat(briefly.check().violations())
        .singleElement()
        .asString()
        .contains("took 4600 ms, above its bound of 2500 ms");
  }

  @Test
  void aWaitPastItsBoundIsAViolationUnlessItsProcessWasStopped() {
    ChaosChecker late = new ChaosChecker();
    late.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout w1.0.0");
    assertThat(late.check().violations())
        .singleElement()
        .asString()
        .contains("took 5000 ms, above its bound of 2500 ms");

    ChaosChecker partitioned = new ChaosChecker(); // a partition is no excuse: the wait is bounded
    partitioned.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout w1.0.0");
    partitioned.event(0, 1000 * MS + " F " + 4000 * MS + " partition false 1 blackholed");
    assertThat(partitioned.check().violations()).hasSize(1);

    ChaosChecker stopped = new ChaosChecker();
    stopped.event(1, 5000 * MS + " A chaos-fair 0 2000 timeout w1.0.0");
    stopped.event(0, 1000 * MS + " F " + 4000 * MS + " stop-worker false 1 SIGSTOP");
    assertThat(stopped.check().violations()).isEmpty();
  }

  @Test
  void moreConfirmedHoldersThanPermitsIsAViolation() {
    for (int holder = 0; holder < 3; holder++) {
      log(1, holder + 1, "P chaos-leased h" + holder);
      log(1, 10, "Q chaos-leased h" + holder + " ok");
    }

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("3 holders of chaos-leased at once, above its 2 permits");
  }

  @Test
  void aCreatedPlainPermitInAQuietEpochIsAViolation() {
    fault(10, 20, "restart", "empty", "-");
    fault(30, 40, "restart-snapshot", "true", "-");
    epoch(1, 50); // after both faults; none since
    for (int holder = 0; holder < 4; holder++) {
      log(1, 100 + holder, "P chaos-sem-1 h" + holder);
      log(1, 150, "Q chaos-sem-1 h" + holder + " ok");
    }

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .isEqualTo(
            "4 holders of chaos-sem-1 at once, above its 3 permits, with no fault that lost data"
                + " since it was new");
    assertThat(report.semaphore().epochs()).isEqualTo(1);
  }

  @Test
  void aCreatedPlainPermitIsAViolationWhateverFaultsKeptTheData() {
    fault(10, 20, "freeze", "false", "-");
    fault(30, 40, "partition", "false", "1");
    fault(45, 60, "cut", "false", "2");
    for (int holder = 0; holder < 4; holder++) { // epoch 0, held across faults that kept the data
      log(1, 15 + holder, "P chaos-sem-0 h" + holder);
      log(1, 50, "Q chaos-sem-0 h" + holder + " error");
    }

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .startsWith("4 holders of chaos-sem-0 at once, above its 3 permits");
  }

  @Test
  void permitsGivenBackAfterARewindAreNoViolationAndTheNextEpochIsJudgedAgain() {
    // What a real rewind does: 3 permits of epoch 0 are held when Redis goes back to a count of
    // 3 free; given back after it, they make 6, and 4 holders at once follow. No Warden bug.
    for (int holder = 0; holder < 3; holder++) {
      log(1, 1 + holder, "P chaos-sem-0 a" + holder);
      log(1, 30, "Q chaos-sem-0 a" + holder + " ok");
    }
    fault(10, 20, "restart-snapshot", "true", "-");
    for (int holder = 0; holder < 4; holder++) {
      log(2, 40 + holder, "P chaos-sem-0 b" + holder);
      log(2, 60, "Q chaos-sem-0 b" + holder + " ok");
    }
    epoch(1, 70);
    for (int holder = 0; holder < 3; holder++) {
      log(2, 80 + holder, "A chaos-sem-1 " + (75 + holder) * MS + " 2000 got c" + holder);
      log(2, 80 + holder, "P chaos-sem-1 c" + holder);
      log(2, 90, "Q chaos-sem-1 c" + holder + " ok");
    }
    log(1, 100, "I idle"); // the run ends at 100 ms

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.semaphore().epochs()).isEqualTo(2);
    // Judged from 1 ms (epoch 0's first acquisition) to 10 ms (the rewind starts), then from
    // 75 ms (epoch 1's first call) to the end at 100 ms: 34 ms of 99.
    assertThat(report.semaphore().shareJudged()).isCloseTo(34.0 / 99, within(1e-9));
  }

  @Test
  void anEpochIsJudgedUntilTheNextFaultThatLosesDataStartsAndNoLonger() {
    epoch(1, 20);
    fault(50, 60, "failover", "true", "-");
    for (int holder = 0; holder < 4; holder++) { // 4 at once from 55: the failover had begun
      log(1, 52 + holder, "P chaos-sem-1 h" + holder);
      log(1, 70, "Q chaos-sem-1 h" + holder + " ok");
    }
    assertThat(checker.check().violations()).isEmpty();

    ChaosChecker before = new ChaosChecker(); // the same, with the 4th holder before it began
    before.event(0, 20 * MS + " N 1 0");
    before.event(0, 50 * MS + " F " + 60 * MS + " failover true - x");
    for (int holder = 0; holder < 4; holder++) {
      before.event(1, (46 + holder) * MS + " P chaos-sem-1 h" + holder);
      before.event(1, 70 * MS + " Q chaos-sem-1 h" + holder + " ok");
    }
    assertThat(before.check().violations())
        .singleElement()
        .asString()
        .startsWith("4 holders of chaos-sem-1 at once");
  }

  @Test
  void aPlainSemaphoreUsedBeforeItsEpochWasAnnouncedIsAViolation() {
    epoch(1, 50);
    log(1, 60, "A chaos-sem-1 " + 40 * MS + " 2000 got h0"); // its call began before the epoch
    log(1, 60, "P chaos-sem-1 h0");
    log(1, 70, "Q chaos-sem-1 h0 ok");
    log(1, 80, "P chaos-sem-2 h1"); // never announced
    log(1, 90, "Q chaos-sem-2 h1 ok");

    assertThat(checker.check().violations())
        .containsExactly(
            "the plain semaphore chaos-sem-1 was used before its epoch was announced",
            "the plain semaphore chaos-sem-2 was used in an epoch never announced");
  }

  @Test
  void aLogFromBeforeEpochsIsJudgedUntilTheFirstFaultThatLostData() {
    for (int holder = 0; holder < 4; holder++) {
      log(1, 100 + holder, "P chaos-semaphore h" + holder);
      log(1, 150, "Q chaos-semaphore h" + holder + " ok");
    }
    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .startsWith("4 holders of chaos-semaphore at once, above its 3 permits");

    ChaosChecker rewound = new ChaosChecker();
    rewound.event(0, 10 * MS + " F " + 20 * MS + " restart-snapshot true - x");
    for (int holder = 0; holder < 4; holder++) {
      rewound.event(1, (100 + holder) * MS + " P chaos-semaphore h" + holder);
      rewound.event(1, 150 * MS + " Q chaos-semaphore h" + holder + " ok");
    }
    assertThat(rewound.check().violations()).isEmpty();
  }

  @Test
  void aKeyLeftInRedisAWorkerLeakOrAnUnexpectedExceptionIsAViolation() {
    assertThat(
            ChaosChecker.leftoverKeys(
                List.of(
                    "warden:{chaos-lock}:lock:fence",
                    "warden:{chaos-sem-0}:semaphore",
                    "warden:{chaos-sem-12}:semaphore",
                    "warden:{chaos-leased}:leased-semaphore",
                    "warden:{warden-format}:format",
                    "warden:{chaos-lock}:lock")))
        .containsExactly("keys left in Redis: [warden:{chaos-lock}:lock]");
    assertThat(ChaosChecker.leftoverKeys(List.of("warden:{chaos-fair}:fair:fence"))).isEmpty();

    log(2, 1, "K WardenStats[holds=1]");
    log(2, 2, "U 3 java.lang.NullPointerException");
    assertThat(checker.check().violations()).hasSize(2);
  }

  @Test
  void aSectionWhoseLogMissesAnAccessIsAViolation() {
    log(1, 0, "T chaos-lock w1.0.0 5");
    log(1, 1, "W chaos-lock w1.0.0 5 1");
    log(1, 3, "W chaos-lock w1.0.0 5 3");
    log(1, 4, "R chaos-lock w1.0.0 ok 3");

    assertThat(checker.check().violations())
        .containsExactly(
            "the log of w1.0.0 on chaos-lock lost an access before 3",
            "the log of w1.0.0 on chaos-lock has 2 of its 3 accesses");
  }

  /**
   * Worker 1 (w1.0.0, token 100, called at 990 ms) loses the lock to worker 2 (w2.0.0, token 200)
   * at 1200 ms; worker 1's release ends with {@code outcome} at 1700 ms.
   */
  private void doubleGrant(String outcome) {
    doubleGrant(checker, outcome);
  }

  private static void doubleGrant(ChaosChecker checker, String outcome) {
    log(checker, 1, 1000, "A chaos-lock " + 990 * MS + " 2000 got w1.0.0");
    log(checker, 1, 1000, "T chaos-lock w1.0.0 100");
    log(checker, 1, 1100, "W chaos-lock w1.0.0 100 1");
    log(checker, 2, 1200, "T chaos-lock w2.0.0 200");
    log(checker, 2, 1300, "W chaos-lock w2.0.0 200 1");
    log(checker, 1, 1400, "W chaos-lock w1.0.0 100 2");
    log(checker, 2, 1500, "W chaos-lock w2.0.0 200 2");
    log(checker, 2, 1600, "R chaos-lock w2.0.0 ok 2");
    log(checker, 1, 1700, "R chaos-lock w1.0.0 " + outcome + " 2");
  }

  private void epoch(int epoch, long at) {
    checker.event(0, at * MS + " N " + epoch + " 0");
  }

  /**
   * Worker 1 (w1.0.0, token 5) writes at 10 ms and, if {@code pausedMillis} is positive, is paused
   * from 20 ms for that long (its heartbeat says so when it wakes); worker 2 (w2.0.0, token 6) gets
   * the lock at 3000 ms and writes; worker 1 writes again at 4100 ms (refused), hears of its lost
   * lease and releases.
   */
  private static void pausedHolderLosesTheLock(ChaosChecker checker, long pausedMillis) {
    log(checker, 1, 0, "A chaos-lock 0 2000 got w1.0.0");
    log(checker, 1, 0, "T chaos-lock w1.0.0 5");
    log(checker, 1, 10, "W chaos-lock w1.0.0 5 1");
    if (pausedMillis > 0) {
      log(checker, 1, 20 + pausedMillis, "H " + 20 * MS + " heartbeat");
    }
    log(checker, 2, 3000, "A chaos-lock " + 2990 * MS + " 2000 got w2.0.0");
    log(checker, 2, 3000, "T chaos-lock w2.0.0 6");
    log(checker, 2, 3010, "W chaos-lock w2.0.0 6 1");
    log(checker, 2, 3020, "W chaos-lock w2.0.0 6 2");
    log(checker, 2, 3030, "R chaos-lock w2.0.0 ok 2");
    log(checker, 1, 4100, "W chaos-lock w1.0.0 5 2");
    log(checker, 1, 4110, "L chaos-lock w1.0.0");
    log(checker, 1, 4120, "R chaos-lock w1.0.0 lost 2");
  }

  private void fault(long from, long to, String kind, String data, String worker) {
    checker.event(0, from * MS + " F " + to * MS + " " + kind + " " + data + " " + worker + " x");
  }

  private void section(int worker, String holder, long token, long from, long to) {
    log(worker, from - 1, "A chaos-lock " + (from * MS - 2 * MS) + " 2000 got " + holder);
    log(worker, from, "T chaos-lock " + holder + " " + token);
    log(worker, from, "W chaos-lock " + holder + " " + token + " 1");
    log(worker, (from + to) / 2, "W chaos-lock " + holder + " " + token + " 2");
    log(worker, to, "W chaos-lock " + holder + " " + token + " 3");
    log(worker, to + 1, "R chaos-lock " + holder + " ok 3");
  }

  private void log(int worker, long millis, String event) {
    log(checker, worker, millis, event);
  }

  private static void log(ChaosChecker checker, int worker, long millis, String event) {
    checker.event(worker, millis * MS + " " + event);
  }
}
