package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
  void aCreatedPlainPermitIsAViolationAtAnyTimeOfTheRun() {
    fault(10, 20, "restart", "empty", "-");
    fault(30, 40, "restart-snapshot", "true", "-");
    for (int holder = 0; holder < 4; holder++) { // long after both faults, with no hold across
      log(1, 100 + holder, "P chaos-semaphore h" + holder);
      log(1, 150, "Q chaos-semaphore h" + holder + " ok");
    }

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .contains("4 holders of chaos-semaphore at once, above its 3 permits");
    assertThat(report.semaphore().mostPermits()).isEqualTo(3);
  }

  @Test
  void plainPermitsHeldAcrossAFaultThatLostDataCountOnTopOfItsPermits() {
    for (int holder = 0; holder < 3; holder++) { // held across the restart at 10-20
      log(1, 1, "P chaos-semaphore a" + holder);
      log(1, 50, "Q chaos-semaphore a" + holder + " ok");
    }
    for (int holder = 0; holder < 4; holder++) { // the emptied count was set to 3 again, and the
      log(2, 30 + holder, "P chaos-semaphore b" + holder); // 3 held across it count on top: 6
      log(2, 60, "Q chaos-semaphore b" + holder + " ok");
    }
    fault(10, 20, "restart", "empty", "-");

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .contains("7 holders of chaos-semaphore at once, above the 6 permits it can have had");
    assertThat(report.semaphore().mostPermits()).isEqualTo(6);
    assertThat(report.semaphore().shareAtItsPermits()).isBetween(0.1, 0.2);
  }

  @Test
  void aFaultRaisesThePlainPermitsByTheMostHeldAtOnceDuringItNotByAllWhoHeldDuringIt() {
    for (int holder = 0; holder < 3; holder++) { // one after another during a long failover
      log(
          1,
          10 + 30 * holder,
          "A chaos-semaphore " + (5 + 30 * holder) * MS + " 2000 got a" + holder);
      log(1, 10 + 30 * holder, "P chaos-semaphore a" + holder);
      log(1, 20 + 30 * holder, "Q chaos-semaphore a" + holder + " ok");
    }
    fault(0, 100, "failover-lose-writes", "true", "-");
    for (int holder = 0; holder < 5; holder++) {
      log(2, 200 + holder, "P chaos-semaphore b" + holder);
      log(2, 250, "Q chaos-semaphore b" + holder + " ok");
    }

    ChaosChecker.Report report = checker.check();

    assertThat(report.violations())
        .singleElement()
        .asString()
        .contains("5 holders of chaos-semaphore at once, above the 4 permits it can have had");
    assertThat(report.semaphore().mostPermits()).isEqualTo(4);
  }

  @Test
  void aRestartThatEmptiesRedisBringsThePlainSemaphoreBackToItsPermits() {
    log(1, 1, "P chaos-semaphore a0"); // held across the rewind at 10-20: 4 permits from then
    log(1, 50, "Q chaos-semaphore a0 ok");
    fault(10, 20, "restart-snapshot", "true", "-");
    fault(60, 70, "restart", "empty", "-"); // no hold across: 3 again
    for (int holder = 0; holder < 4; holder++) {
      log(2, 80 + holder, "P chaos-semaphore b" + holder);
      log(2, 90, "Q chaos-semaphore b" + holder + " ok");
    }

    assertThat(checker.check().violations())
        .singleElement()
        .asString()
        .contains("4 holders of chaos-semaphore at once, above its 3 permits");
  }

  @Test
  void aKeyLeftInRedisAWorkerLeakOrAnUnexpectedExceptionIsAViolation() {
    assertThat(
            ChaosChecker.leftoverKeys(
                List.of(
                    "warden:{chaos-lock}:lock:fence",
                    "warden:{chaos-semaphore}:semaphore",
                    "warden:{chaos-leased}:leased-semaphore",
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
