package dev.warden.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * CPU time of another process's threads by class (JIT compiler, GC, the clients' timers and event
 * loops, the workload's threads...), read from Linux's {@code /proc/<pid>/task/<tid>/stat}: the
 * thread's name ({@code comm}, its first 15 characters) and its user and system time ({@code utime}
 * + {@code stime}, in clock ticks). W7 and W9 use it to say where their worker JVMs' CPU goes.
 *
 * <p>Two snapshots make a split ({@link #since}). A thread alive at both counts what it used in
 * between; one born in between counts from zero. A thread that ended in between is gone from {@code
 * /proc}: what it used in between is the process's own total ({@code /proc/<pid>/stat}, which keeps
 * ended threads' time) minus what the live threads used, and counts as {@link Kind#EXITED},
 * whatever it was (a thread born and ended in between is never seen at all). JDK 17 stops idle
 * compiler threads beyond the first of each compiler, so some JIT time may land there: CPU without
 * {@link Kind#JIT} is therefore an upper bound, never an understatement.
 *
 * <p>Stateless; snapshots are immutable. Reading costs one file per thread.
 */
final class ProcThreads {
  private static final Path PROC = Path.of("/proc");

  /** Linux's {@code USER_HZ}, the unit of {@code utime} and {@code stime}: 100 where unknown. */
  private static final long TICKS_PER_SECOND = readTicksPerSecond();

  private ProcThreads() {}

  /** What a thread does, by its name. */
  enum Kind {
    /** HotSpot's JIT: {@code C1 CompilerThre}, {@code C2 CompilerThre}, {@code Sweeper thread}. */
    JIT("jit", "JIT compiler"),
    /** Garbage collection: {@code GC Thread#}, {@code G1 ...}, ZGC's, and {@code VM Thread}. */
    GC("gc", "GC and VM thread"),
    /**
     * The clients' timers: {@code warden-timer-}, {@code redisson-timer}, {@code lettuce-timer}.
     */
    TIMER("timer", "timers"),
    /** Netty's event loops: {@code lettuce-*} (but its timer) and {@code redisson-netty}. */
    EVENT_LOOP("event_loop", "Lettuce/Netty event loops"),
    /** The clients' other threads: {@code warden-*}, {@code redisson-*} executors. */
    CLIENT("client", "other client threads"),
    /** The workload's own threads, which take and release the lock: {@code w7-}, {@code w8-}. */
    WORKLOAD("workload", "lock threads"),
    /** The main thread ({@code java}): a worker's polls of its stop file. */
    MAIN("main", "main thread"),
    /** Every other thread: HotSpot's service threads, the stdout reader, unnamed threads. */
    OTHER("other", "other threads"),
    /** Threads that ended between the snapshots, whatever they were. */
    EXITED("exited", "ended threads");

    private final String key;
    private final String label;

    Kind(String key, String label) {
      this.key = key;
      this.label = label;
    }

    /** Returns the key fragment for tallies and results, e.g. {@code jit}. */
    String key() {
      return key;
    }

    /** Returns a short label for tables, e.g. {@code JIT compiler}. */
    String label() {
      return label;
    }

    /** Returns the kind of a live thread named {@code comm} (never {@link #EXITED}). */
    static Kind of(String comm) {
      if (startsWithAny(comm, "C1 Compiler", "C2 Compiler", "Sweeper thread", "JVMCI")) {
        return JIT;
      }
      if (startsWithAny(
          comm,
          "GC Thread",
          "G1 ",
          "VM Thread",
          "ZDirector",
          "ZDriver",
          "ZStat",
          "ZWorker",
          "ZUnmapper",
          "ZUncommit",
          "Shenandoah")) {
        return GC;
      }
      if (startsWithAny(comm, "warden-timer", "redisson-timer", "lettuce-timer")) {
        return TIMER;
      }
      if (startsWithAny(comm, "lettuce-", "redisson-netty") || comm.contains("EventLoop")) {
        return EVENT_LOOP;
      }
      if (startsWithAny(comm, "warden-", "redisson-") && !comm.startsWith("warden-jvm-stdo")) {
        return CLIENT;
      }
      if (startsWithAny(comm, "w7-", "w8-", "bench-")) {
        return WORKLOAD;
      }
      return comm.equals("java") ? MAIN : OTHER;
    }

    private static boolean startsWithAny(String comm, String... prefixes) {
      for (String prefix : prefixes) {
        if (comm.startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * One thread's line of {@code stat}.
   *
   * @param comm its name, at most 15 characters
   * @param ticks its user and system time so far, in clock ticks
   */
  record Task(String comm, long ticks) {}

  /**
   * A process's threads at one moment.
   *
   * @param processTicks the whole process's user and system time so far, ended threads' included
   * @param tasks thread id to its line
   */
  record Snapshot(long processTicks, Map<Long, Task> tasks) {
    Snapshot {
      tasks = Map.copyOf(tasks);
    }
  }

  /**
   * Parses one line of {@code /proc/.../stat}: {@code pid (comm) state ppid ...}, {@code utime} and
   * {@code stime} the 14th and 15th fields. The name may hold spaces and parentheses: it ends at
   * the last {@code )}.
   *
   * @throws IllegalArgumentException if the line is not of that form
   */
  static Task parseStat(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("stat line has no (comm): " + line);
    }
    // Fields from the 3rd (state) on, after ") ".
    String[] fields = line.substring(Math.min(line.length(), close + 2)).trim().split(" ", -1);
    if (fields.length < 13) {
      throw new IllegalArgumentException("stat line has too few fields: " + line);
    }
    try {
      long utime = Long.parseLong(fields[11]);
      long stime = Long.parseLong(fields[12]);
      return new Task(line.substring(open + 1, close), utime + stime);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("stat line's utime or stime is not a number: " + line, e);
    }
  }

  /**
   * Returns the threads of process {@code pid} now; empty where there is no {@code /proc} or the
   * process is gone. A thread that ends while it is read is left out (it counts as ended).
   */
  static Optional<Snapshot> read(long pid) {
    return read(PROC, pid);
  }

  /** Returns the threads of process {@code pid} under {@code proc}; see {@link #read(long)}. */
  static Optional<Snapshot> read(Path proc, long pid) {
    Path process = proc.resolve(Long.toString(pid));
    try {
      long processTicks = parseStat(Files.readString(process.resolve("stat"))).ticks();
      Map<Long, Task> tasks = new HashMap<>();
      try (Stream<Path> dirs = Files.list(process.resolve("task"))) {
        for (Path dir : dirs.toList()) {
          long tid;
          try {
            tid = Long.parseLong(dir.getFileName().toString());
          } catch (NumberFormatException e) {
            continue; // not a thread's directory
          }
          try {
            tasks.put(tid, parseStat(Files.readString(dir.resolve("stat"))));
          } catch (NoSuchFileException e) {
            // ended since the listing: its time is in the process's total, counted as ended
          }
        }
      }
      return Optional.of(new Snapshot(processTicks, tasks));
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      // No /proc (not Linux), the process gone, or a format this reader does not know: the split
      // is unknown, which the caller reports.
      return Optional.empty();
    }
  }

  /**
   * Returns the CPU time in nanoseconds each kind of thread used from {@code before} to {@code
   * after} (every kind present, 0 if none); {@link Kind#EXITED} is the process's total less the
   * live threads' (see the class comment), never below 0. A thread is known by its id (Linux hands
   * ids out in rising order up to {@code pid_max} before reusing one) and classed by its name in
   * {@code after}.
   */
  static Map<Kind, Long> since(Snapshot before, Snapshot after) {
    Map<Kind, Long> ticks = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      ticks.put(kind, 0L);
    }
    long live = 0;
    for (Map.Entry<Long, Task> entry : after.tasks().entrySet()) {
      Task now = entry.getValue();
      Task then = before.tasks().get(entry.getKey());
      long used = now.ticks() - (then == null ? 0 : then.ticks());
      ticks.merge(Kind.of(now.comm()), used, Long::sum);
      live += used;
    }
    // Each thread's ticks and the process's are rounded down apart: a few ticks either way.
    ticks.put(Kind.EXITED, Math.max(0, after.processTicks() - before.processTicks() - live));
    ticks.replaceAll((kind, n) -> n * TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND);
    return ticks;
  }

  /** Returns the threads that ended (seen in {@code before}, not in {@code after}). */
  static long ended(Snapshot before, Snapshot after) {
    return before.tasks().keySet().stream().filter(tid -> !after.tasks().containsKey(tid)).count();
  }

  /** Returns the threads born (seen in {@code after}, not in {@code before}). */
  static long born(Snapshot before, Snapshot after) {
    return after.tasks().keySet().stream().filter(tid -> !before.tasks().containsKey(tid)).count();
  }

  /** Returns the clock ticks per second that {@code stat}'s times are counted in. */
  static long ticksPerSecond() {
    return TICKS_PER_SECOND;
  }

  /** Returns {@code getconf CLK_TCK}, or 100 (Linux's USER_HZ on every common architecture). */
  private static long readTicksPerSecond() {
    if (!Files.isDirectory(PROC.resolve("self"))) {
      return 100;
    }
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out;
      try (InputStream in = getconf.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
      }
      if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
        long hz = Long.parseLong(out);
        if (hz > 0) {
          return hz;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // getconf missing or odd: USER_HZ is 100 wherever this benchmark runs
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
