package dev.warden.testkit.examples;

// The testing guide's example, as a user's test in a package of its own (DocSnippetsTest compares
// the guide's block with the region below).
// example testkit: begin
import dev.warden.DistributedLock;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(WardenExtension.class) // a real redis-server for the class, flushed before each test
class NightlyReportLockIT {

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
// example testkit: end
