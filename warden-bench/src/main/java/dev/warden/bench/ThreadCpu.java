package dev.warden.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads by name: the lease keepers' timer threads ({@code warden-timer-*},
 * {@code redisson-timer-*}: where a renewal round is put together) apart from everything else, so
 * that W5 can say what one round costs in Java. A thread alive at only one of two readings counts
 * from zero, or not at all once gone.
 */
final class ThreadCpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ThreadCpu() {}

  /**
   * Returns thread id to CPU nanoseconds so far of the keepers' timer threads; empty if unknown.
   */
  static Map<Long, Long> timers() {
    Map<Long, Long> cpu = new HashMap<>();
    if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled()) {
      return cpu;
    }
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && isKeeperTimer(info.getThreadName())) {
        long nanos = THREADS.getThreadCpuTime(info.getThreadId());
        if (nanos >= 0) {
          cpu.put(info.getThreadId(), nanos);
        }
      }
    }
    return cpu;
  }

  /** Returns the CPU time the threads of {@code after} used since {@code before}. */
  static long since(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> entry : after.entrySet()) {
      sum += entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
    }
    return sum;
  }

  static boolean isKeeperTimer(String name) {
    return name.startsWith("warden-timer-") || name.startsWith("redisson-timer");
  }
}
