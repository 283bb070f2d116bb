package dev.warden.testkit;

import dev.warden.DistributedLock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's "Testing your code with Warden's testkit" example, as written there. */
@ExtendWith(WardenExtension.class) // a real redis-server for the class, flushed before each test
class ReadmeExampleIT {

  @Test
  void twoInstancesOfTheAppNeverRunTheReportAtOnce(WardenFactory wardens) throws Exception {
    // one Warden per simulated app instance: each is another owner; all closed after the test
    List<DistributedLock> locks =
        List.of(wardens.create().lock("nightly-report"), wardens.create().lock("nightly-report"));
    CriticalSection report = new CriticalSection();

    StartGate.run(
        8,
        50,
        thread -> { // 8 threads x 50 rounds, released together
          DistributedLock lock = locks.get(thread % 2);
          lock.lock();
          try {
            // your guarded code runs inside: report.enter(1, () -> yourCode())
            report.enterWithToken(lock.fencingToken());
          } finally {
            lock.unlock();
          }
        });

    // exact count (no lost update), never two inside, fencing tokens rising in hold order
    report.assertMutualExclusion(8 * 50);
  }
}
