package dev.warden.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what Redis has done from its INFO sections, through a connection of its own: calls per
 * command ({@code commandstats}, which counts commands run inside scripts too), its CPU time
 * ({@code cpu}) and the socket reads it processed ({@code stats}: one per request from a client
 * that waits for each reply, so a fair count of round trips). A {@link Delta} of two snapshots
 * leaves out the snapshots' own INFO calls.
 *
 * <p>Thread-safe (Lettuce's connection is); used by the runner's thread only.
 */
final class RedisStats implements Stats {
  /** Commands that run a script: counted as scripts, not as commands. */
  static final Set<String> SCRIPT_COMMANDS =
      Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

  private static final int INFO_CALLS_PER_SNAPSHOT = 3;
  private static final Pattern COMMAND_CALLS =
      Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)", Pattern.MULTILINE);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  private RedisStats(RedisClient client, StatefulRedisConnection<String, String> connection) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
  }

  /** Connects to the Redis at {@code uri}. */
  static RedisStats connect(String uri) {
    RedisClient client = RedisClient.create(uri);
    try {
      return new RedisStats(client, client.connect());
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw e;
    }
  }

  /** Returns the server's version, e.g. {@code 7.0.15}. */
  String serverVersion() {
    return field(redis.info("server"), "redis_version");
  }

  /** Returns the admin connection's commands: script loading, for the ceiling run. */
  RedisCommands<String, String> commands() {
    return redis;
  }

  /**
   * Reads the counters now, one INFO call per section. A window's opening snapshot reads the
   * command calls last and its closing one reads them first, so that only one INFO call's time on
   * either edge is counted by Redis but not by the workers.
   */
  @Override
  public Snapshot snapshot(boolean opening) {
    Map<String, Long> calls = opening ? null : parseCommandCalls(redis.info("commandstats"));
    String cpu = redis.info("cpu");
    double cpuSeconds =
        Double.parseDouble(field(cpu, "used_cpu_sys"))
            + Double.parseDouble(field(cpu, "used_cpu_user"));
    long reads = Long.parseLong(field(redis.info("stats"), "total_reads_processed"));
    if (opening) {
      calls = parseCommandCalls(redis.info("commandstats"));
    }
    return new Snapshot(calls, cpuSeconds, reads, cpuSeconds, INFO_CALLS_PER_SNAPSHOT);
  }

  /** Returns command name (lower case, subcommands as {@code config|get}) to calls. */
  static Map<String, Long> parseCommandCalls(String commandstats) {
    Map<String, Long> calls = new TreeMap<>();
    Matcher matcher = COMMAND_CALLS.matcher(commandstats);
    while (matcher.find()) {
      calls.put(
          matcher.group(1).toLowerCase(java.util.Locale.ROOT), Long.parseLong(matcher.group(2)));
    }
    return calls;
  }

  /** Returns the value of {@code name:value} in an INFO text. */
  static String field(String info, String name) {
    Matcher matcher =
        Pattern.compile("^" + Pattern.quote(name) + ":(.*?)\\r?$", Pattern.MULTILINE).matcher(info);
    if (!matcher.find()) {
      throw new IllegalStateException("INFO has no field " + name);
    }
    return matcher.group(1).trim();
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /**
   * Redis's counters at one moment: of one server, or of a cluster's masters.
   *
   * @param calls command to calls since the server started
   * @param cpuSeconds user plus system CPU time of the server (of the masters)
   * @param reads socket reads processed
   * @param allCpuSeconds CPU time of every node, replicas included (of the server alone)
   * @param infoReads how many of the reads between two snapshots are the snapshots' own INFO calls
   */
  record Snapshot(
      Map<String, Long> calls, double cpuSeconds, long reads, double allCpuSeconds, int infoReads) {

    /** Returns one server's counters: {@code allCpuSeconds} is its CPU time. */
    Snapshot(Map<String, Long> calls, double cpuSeconds, long reads) {
      this(calls, cpuSeconds, reads, cpuSeconds, INFO_CALLS_PER_SNAPSHOT);
    }

    /** Returns the sum of two nodes' counters (commands and reads of masters only). */
    Snapshot plus(Snapshot other, boolean otherIsMaster) {
      if (!otherIsMaster) {
        return new Snapshot(
            calls, cpuSeconds, reads, allCpuSeconds + other.allCpuSeconds, infoReads);
      }
      Map<String, Long> sum = new TreeMap<>(calls);
      other.calls.forEach((command, n) -> sum.merge(command, n, Long::sum));
      return new Snapshot(
          sum,
          cpuSeconds + other.cpuSeconds,
          reads + other.reads,
          allCpuSeconds + other.allCpuSeconds,
          infoReads + other.infoReads);
    }

    /** Returns what happened between {@code before} and this snapshot. */
    Delta minus(Snapshot before) {
      Map<String, Long> byCommand = new TreeMap<>();
      calls.forEach(
          (command, n) -> {
            long delta = n - before.calls.getOrDefault(command, 0L);
            if (delta > 0) {
              byCommand.put(command, delta);
            }
          });
      // The INFO calls are the benchmark's own, never a library's. Each costs a socket read, and
      // the stats section is always the second of a snapshot's three calls, so between two
      // readings of the read counter lie exactly three INFO calls.
      byCommand.remove("info");
      long scripts = 0;
      long commands = 0;
      for (Map.Entry<String, Long> entry : byCommand.entrySet()) {
        if (SCRIPT_COMMANDS.contains(entry.getKey())) {
          scripts += entry.getValue();
        } else {
          commands += entry.getValue();
        }
      }
      return new Delta(
          commands,
          scripts,
          Math.max(0, reads - before.reads - infoReads),
          cpuSeconds - before.cpuSeconds,
          allCpuSeconds - before.allCpuSeconds,
          byCommand);
    }
  }

  /**
   * What Redis did between two snapshots, the benchmark's INFO calls left out.
   *
   * @param commands calls of commands other than scripts, those run by scripts included
   * @param scripts calls of EVAL, EVALSHA and their kin
   * @param roundTrips socket reads processed: requests, when clients wait for each reply
   * @param cpuSeconds server CPU time used (a cluster's masters')
   * @param allCpuSeconds CPU time of every node, replicas included (one server: its own)
   * @param byCommand calls per command (scripts included)
   */
  record Delta(
      long commands,
      long scripts,
      long roundTrips,
      double cpuSeconds,
      double allCpuSeconds,
      Map<String, Long> byCommand) {
    /** Nothing done: the start of a sum. */
    static final Delta NONE = new Delta(0, 0, 0, 0, 0, Map.of());

    Delta {
      byCommand = java.util.Collections.unmodifiableMap(new TreeMap<>(byCommand));
    }

    /** Returns the work of this and {@code other} together. */
    Delta plus(Delta other) {
      Map<String, Long> calls = new TreeMap<>(byCommand);
      other.byCommand.forEach((command, n) -> calls.merge(command, n, Long::sum));
      return new Delta(
          commands + other.commands,
          scripts + other.scripts,
          roundTrips + other.roundTrips,
          cpuSeconds + other.cpuSeconds,
          allCpuSeconds + other.allCpuSeconds,
          calls);
    }
  }
}
