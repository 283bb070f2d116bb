package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.warden.bench.ProcThreads.Kind;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcThreadsTest {
  private static final long BURN_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

  /** Two clock ticks of 10 ms: each of two readings may round a thread's time down by one. */
  private static final long ROUNDING_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  @Test
  void aStatLineIsReadUpToTheLastParenthesisOfItsName() {
    String line =
        "4711 (C2 (Compi) er) R 1 4711 4711 0 -1 4194368 100 0 0 0 1234 56 0 0 20 0 30 0 99 0 0";

    ProcThreads.Task task = ProcThreads.parseStat(line);

    assertThat(task.comm()).isEqualTo("C2 (Compi) er");
    assertThat(task.ticks()).isEqualTo(1234 + 56);
    assertThatThrownBy(() -> ProcThreads.parseStat("4711 C2 R 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4711 C2 R 1");
    assertThatThrownBy(() -> ProcThreads.parseStat("4711 (x) R 1 2 3"))
        .hasMessageContaining("too few fields");
  }

  @Test
  void threadsAreClassedByTheirNamesAsLinuxTruncatesThem() {
    assertThat(Kind.of("C1 CompilerThre")).isEqualTo(Kind.JIT);
    assertThat(Kind.of("C2 CompilerThre")).isEqualTo(Kind.JIT);
    assertThat(Kind.of("Sweeper thread")).isEqualTo(Kind.JIT);
    assertThat(Kind.of("GC Thread#1")).isEqualTo(Kind.GC);
    assertThat(Kind.of("G1 Conc#0")).isEqualTo(Kind.GC);
    assertThat(Kind.of("G1 Refine#0")).isEqualTo(Kind.GC);
    assertThat(Kind.of("VM Thread")).isEqualTo(Kind.GC);
    assertThat(Kind.of("warden-timer-1")).isEqualTo(Kind.TIMER);
    assertThat(Kind.of("redisson-timer-")).isEqualTo(Kind.TIMER);
    assertThat(Kind.of("lettuce-timer-3")).isEqualTo(Kind.TIMER);
    assertThat(Kind.of("lettuce-epollEv")).isEqualTo(Kind.EVENT_LOOP);
    assertThat(Kind.of("lettuce-nioEven")).isEqualTo(Kind.EVENT_LOOP);
    assertThat(Kind.of("redisson-netty-")).isEqualTo(Kind.EVENT_LOOP);
    assertThat(Kind.of("redisson-36-9")).isEqualTo(Kind.CLIENT);
    assertThat(Kind.of("warden-quorum-1")).isEqualTo(Kind.CLIENT);
    assertThat(Kind.of("w7-15-0")).isEqualTo(Kind.WORKLOAD);
    assertThat(Kind.of("w8-3-999")).isEqualTo(Kind.WORKLOAD);
    assertThat(Kind.of("java")).isEqualTo(Kind.MAIN);
    assertThat(Kind.of("VM Periodic Tas")).isEqualTo(Kind.OTHER);
    assertThat(Kind.of("warden-jvm-stdo")).isEqualTo(Kind.OTHER);
    assertThat(Kind.of("Thread-12")).isEqualTo(Kind.OTHER);
  }

  @Test
  void aBusyThreadsCpuIsCountedUnderItsKind() throws InterruptedException {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
    assumeTrue(ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported());
    long pid = ProcessHandle.current().pid();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch burned = new CountDownLatch(1);
    CountDownLatch end = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread busy =
        new Thread(
            () -> {
              try {
                started.countDown();
                go.await();
                burn();
                burned.countDown();
                end.await();
              } catch (Throwable e) { // the test checks it
                failure.set(e);
              }
            },
            "w7-test-busy");
    busy.setDaemon(true);
    busy.start();
    started.await();
    ProcThreads.Snapshot before = ProcThreads.read(pid).orElseThrow();
    go.countDown();
    burned.await();
    ProcThreads.Snapshot after = ProcThreads.read(pid).orElseThrow();
    end.countDown();
    busy.join();

    assertThat(failure.get()).isNull();
    assertThat(before.tasks().values()).anyMatch(task -> task.comm().equals("w7-test-busy"));
    Map<Kind, Long> split = ProcThreads.since(before, after);
    assertThat(split.get(Kind.WORKLOAD)).isGreaterThanOrEqualTo(BURN_NANOS - ROUNDING_NANOS);
    // The split adds up to the process's CPU in between, ended threads' included.
    long total =
        (after.processTicks() - before.processTicks()) * TimeUnit.SECONDS.toNanos(1) / ticks();
    assertThat(split.values().stream().mapToLong(Long::longValue).sum())
        .isGreaterThanOrEqualTo(total)
        .isLessThanOrEqualTo(total + ROUNDING_NANOS * after.tasks().size());
  }

  @Test
  void aThreadThatEndsBetweenTheSnapshotsCountsAsEnded() throws InterruptedException {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
    assumeTrue(ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported());
    long pid = ProcessHandle.current().pid();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread busy =
        new Thread(
            () -> {
              try {
                started.countDown();
                go.await();
                burn();
              } catch (Throwable e) { // the test checks it
                failure.set(e);
              }
            },
            "w7-test-ending");
    busy.start();
    started.await();
    ProcThreads.Snapshot before = ProcThreads.read(pid).orElseThrow();
    go.countDown();
    busy.join();
    // join() returns when the JVM is done with the thread, a moment before the kernel lets the
    // native thread go: until then /proc lists it, with its time as a live thread's (a suite run
    // read 10 ms as ended)
    AtomicReference<ProcThreads.Snapshot> read = new AtomicReference<>();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              read.set(ProcThreads.read(pid).orElseThrow());
              return read.get().tasks().values().stream()
                  .noneMatch(task -> task.comm().equals("w7-test-ending"));
            });
    ProcThreads.Snapshot after = read.get();

    assertThat(failure.get()).isNull();
    Map<Kind, Long> split = ProcThreads.since(before, after);
    assertThat(split.get(Kind.EXITED)).isGreaterThanOrEqualTo(BURN_NANOS - ROUNDING_NANOS);
    assertThat(ProcThreads.ended(before, after)).isPositive();
  }

  @Test
  void aProcessWithoutProcIsUnknown(@TempDir Path noProc) {
    assertThat(ProcThreads.read(noProc, 4711)).isEmpty();
    assertThat(ProcThreads.read(Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void aThreadBornBetweenTheSnapshotsCountsFromZeroAndEndedThreadsAreTheRest() {
    ProcThreads.Snapshot before =
        new ProcThreads.Snapshot(
            1_000,
            Map.of(
                1L, new ProcThreads.Task("C2 CompilerThre", 700),
                2L, new ProcThreads.Task("w7-0-0", 200),
                3L, new ProcThreads.Task("C1 CompilerThre", 100),
                5L, new ProcThreads.Task("C2 CompilerThre", 40)));
    ProcThreads.Snapshot after =
        new ProcThreads.Snapshot(
            1_500,
            Map.of(
                1L, new ProcThreads.Task("C2 CompilerThre", 800),
                2L, new ProcThreads.Task("w7-0-0", 300),
                4L, new ProcThreads.Task("GC Thread#0", 50),
                3L, new ProcThreads.Task("C1 CompilerThre", 130),
                6L, new ProcThreads.Task("warden-timer-1", 30)));

    Map<Kind, Long> split = ProcThreads.since(before, after);

    long tick = TimeUnit.SECONDS.toNanos(1) / ticks();
    assertThat(split.get(Kind.JIT)).isEqualTo((100 + 30) * tick);
    assertThat(split.get(Kind.WORKLOAD)).isEqualTo(100 * tick);
    assertThat(split.get(Kind.GC)).isEqualTo(50 * tick);
    assertThat(split.get(Kind.TIMER)).isEqualTo(30 * tick);
    // 500 ticks of the process in all, 310 of them the live threads': 190 the ended one's (id 5).
    assertThat(split.get(Kind.EXITED)).isEqualTo((500 - 310) * tick);
    assertThat(split.get(Kind.OTHER)).isZero();
    assertThat(ProcThreads.born(before, after)).isEqualTo(2);
    assertThat(ProcThreads.ended(before, after)).isEqualTo(1);
  }

  /** Spins until this thread has used {@link #BURN_NANOS} of CPU. */
  private static void burn() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long start = threads.getCurrentThreadCpuTime();
    long sink = 0;
    while (threads.getCurrentThreadCpuTime() - start < BURN_NANOS) {
      for (int i = 0; i < 10_000; i++) {
        sink += i * 31L ^ sink;
      }
    }
    if (sink == 42) {
      System.out.print(""); // keeps the loop from being optimised away
    }
  }

  private static long ticks() {
    return ProcThreads.ticksPerSecond();
  }
}
