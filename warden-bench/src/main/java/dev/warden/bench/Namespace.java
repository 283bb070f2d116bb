package dev.warden.bench;

import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A round trip through a network namespace of the run's own: the namespace {@code wbench-<pid>} and
 * a veth pair {@code wb<pid>h} (this side) and {@code wb<pid>n} (inside) with a /30 of
 * 10.213.0.0/16 that no interface uses, each end delayed by half the round trip with {@code tc
 * qdisc ... netem delay}. The servers stay in this namespace and also listen on this side's
 * address; the clients (the benchmark's measuring JVM, started again inside with {@link #exec}, and
 * its worker JVMs) run inside, so every one of their packets to Redis and back crosses the delayed
 * pair, while the cluster bus and replication stay on this side.
 *
 * <p>Needs root and iproute2's {@code ip} and {@code tc}, and a kernel with {@code sch_netem}.
 * {@link #create} undoes what it did when a step fails, and says which; {@link #close} (also run by
 * a shutdown hook, so on Ctrl-C too) deletes the pair and the namespace. A namespace left by a run
 * that was killed outright is deleted by the next run, once its process is gone.
 */
final class Namespace implements Network {
  private static final String PREFIX = "wbench-";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final String outside;
  private final String hostAddress;
  private final Duration roundTrip;
  private final Thread cleanup;
  private boolean closed;

  private Namespace(String name, String outside, String hostAddress, Duration roundTrip) {
    this.name = name;
    this.outside = outside;
    this.hostAddress = hostAddress;
    this.roundTrip = roundTrip;
    this.cleanup = new Thread(this::remove, "bench-namespace-cleanup");
  }

  /**
   * Creates the namespace, the pair, their addresses and delays.
   *
   * @throws IllegalStateException naming the step that failed and its output; nothing is left
   */
  static Namespace create(Duration roundTrip) {
    removeStale();
    long pid = ProcessHandle.current().pid();
    String name = PREFIX + pid;
    String outside = "wb" + pid + "h";
    String inside = "wb" + pid + "n";
    String[] block = freeBlock(pid);
    Namespace namespace = new Namespace(name, outside, block[0], roundTrip);
    Runtime.getRuntime().addShutdownHook(namespace.cleanup);
    try {
      run("ip", "netns", "add", name);
      run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
      run("ip", "link", "set", inside, "netns", name);
      run("ip", "addr", "add", block[0] + "/30", "dev", outside);
      run("ip", "link", "set", outside, "up");
      run("ip", "netns", "exec", name, "ip", "addr", "add", block[1] + "/30", "dev", inside);
      run("ip", "netns", "exec", name, "ip", "link", "set", inside, "up");
      run("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up");
      if (!roundTrip.isZero()) {
        String half = (roundTrip.toNanos() / 2_000) + "us";
        // A limit far above the packets in flight: netem's default of 1,000 would drop some.
        run(
            "tc", "qdisc", "add", "dev", outside, "root", "netem", "delay", half, "limit",
            "100000");
        run(
            "ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", inside, "root", "netem",
            "delay", half, "limit", "100000");
      }
      return namespace;
    } catch (RuntimeException e) {
      namespace.close();
      throw e;
    }
  }

  @Override
  public String description() {
    return "clients in network namespace "
        + name
        + ", Redis over a veth pair"
        + (roundTrip.isZero()
            ? " without added delay"
            : " delayed by tc netem "
                + Format.micros(roundTrip.toNanos() / 2e3)
                + " each way ("
                + Format.micros(roundTrip.toNanos() / 1e3)
                + " round trip)");
  }

  @Override
  public Duration roundTrip() {
    return roundTrip;
  }

  /** Returns the command that runs {@code command} inside the namespace. */
  List<String> exec(List<String> command) {
    List<String> inside = new ArrayList<>(List.of("ip", "netns", "exec", name));
    inside.addAll(command);
    return inside;
  }

  @Override
  public String clientUri(RedisServer server) {
    listenOutside(server);
    return "redis://" + hostAddress + ":" + server.port();
  }

  /**
   * Starts the cluster with every node listening on this side's address too, its cluster bus
   * included (which only a start can bind), and announcing it.
   */
  @Override
  public RedisCluster startCluster() {
    return RedisCluster.startWithNodeArgs(
        "--bind",
        "127.0.0.1",
        hostAddress,
        "--protected-mode",
        "no",
        "--cluster-announce-ip",
        hostAddress);
  }

  @Override
  public List<String> clientSeeds(RedisCluster cluster) {
    Map<RedisServer, String> announced = new LinkedHashMap<>();
    for (RedisServer node : cluster.nodes()) {
      announced.put(node, hostAddress + ":" + node.port());
    }
    Announced.await(announced);
    List<String> seeds = new ArrayList<>();
    for (RedisServer master : cluster.masters()) {
      seeds.add("redis://" + hostAddress + ":" + master.port());
    }
    return seeds;
  }

  /**
   * Has the server listen on this side's address too. Protected mode would refuse the clients'
   * connections as not from loopback; the address is on this machine's private pair only.
   */
  private void listenOutside(RedisServer server) {
    server.redis().configSet("protected-mode", "no");
    server.redis().configSet("bind", "127.0.0.1 " + hostAddress);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs (or ran) anyway
    }
    remove();
  }

  /** Deletes the pair (both ends go with one) and the namespace; quiet when they are gone. */
  private void remove() {
    runQuietly("ip", "link", "del", outside);
    runQuietly("ip", "netns", "del", name);
  }

  /** Deletes namespaces (and pairs) this benchmark left when its process was killed outright. */
  private static void removeStale() {
    String list;
    try {
      list = run("ip", "netns", "list");
    } catch (RuntimeException e) {
      return; // create() says why namespaces do not work
    }
    for (String line : list.split("\\n", -1)) {
      String ns = line.strip().split(" ", 2)[0];
      if (!ns.startsWith(PREFIX)) {
        continue;
      }
      long pid;
      try {
        pid = Long.parseLong(ns.substring(PREFIX.length()));
      } catch (NumberFormatException notOurs) {
        continue;
      }
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      runQuietly("ip", "link", "del", "wb" + pid + "h");
      runQuietly("ip", "netns", "del", ns);
    }
  }

  /** Returns this side's and the inside's address of a /30 in 10.213.0.0/16 no interface has. */
  private static String[] freeBlock(long pid) {
    String used = run("ip", "-4", "-o", "addr", "show");
    for (int attempt = 0; attempt < 16_384; attempt++) {
      int block = (int) ((pid + attempt) % 16_384);
      String host = "10.213." + (block / 64) + "." + (block % 64 * 4 + 1);
      if (!used.contains(" " + host.substring(0, host.lastIndexOf('.') + 1))) {
        String inside = "10.213." + (block / 64) + "." + (block % 64 * 4 + 2);
        return new String[] {host, inside};
      }
    }
    throw new IllegalStateException("no free /30 in 10.213.0.0/16");
  }

  private static void runQuietly(String... command) {
    try {
      run(command);
    } catch (RuntimeException e) {
      // already gone, or never made
    }
  }

  /**
   * Runs a command; returns its output.
   *
   * @throws IllegalStateException naming the command and its output if it fails
   */
  static String run(String... command) {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot run `" + String.join(" ", command) + "`: " + e.getMessage(), e);
    }
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("`" + String.join(" ", command) + "` did not finish");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "`"
                + String.join(" ", command)
                + "` failed ("
                + process.exitValue()
                + "): "
                + output.strip().toLowerCase(Locale.ROOT));
      }
      return output;
    } catch (IOException e) {
      throw new IllegalStateException("`" + String.join(" ", command) + "`: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("interrupted running `" + String.join(" ", command) + "`");
    }
  }
}
