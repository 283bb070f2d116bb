package dev.warden.bench;

import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.JvmProcess;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * A round trip through the testkit's {@link FaultProxy}s with {@link FaultProxy#delay}: half the
 * round trip in each direction, in a JVM of their own ({@link #main}), so that their CPU time is
 * not counted as the clients'. The fallback where a network namespace with {@code netem} is not to
 * be had. Unlike {@code netem}, which delays each packet on its own, a proxy holds each chunk it
 * reads for the delay before it reads the next: requests pipelined on one connection pile up into
 * the next chunk and may wait up to twice the delay.
 *
 * <p>A cluster's nodes announce their proxies' ports ({@code cluster-announce-port}), so that
 * redirections lead the clients through them too; the cluster bus stays direct.
 */
final class DelayProxies implements Network {
  private static final Duration START_LIMIT = Duration.ofSeconds(60);

  private final Duration roundTrip;
  private final String why;
  private final List<JvmProcess> jvms = new ArrayList<>();

  /**
   * @param why why not a namespace, for the report
   */
  DelayProxies(Duration roundTrip, String why) {
    this.roundTrip = roundTrip;
    this.why = why;
  }

  @Override
  public String description() {
    return "FaultProxy.delay "
        + Format.micros(roundTrip.toNanos() / 2e3)
        + " each way ("
        + Format.micros(roundTrip.toNanos() / 1e3)
        + " round trip) in a separate JVM"
        + (why.isEmpty() ? "" : "; no network namespace: " + why);
  }

  @Override
  public Duration roundTrip() {
    return roundTrip;
  }

  @Override
  public String clientUri(RedisServer server) {
    return "redis://127.0.0.1:" + start(List.of(server)).get(0);
  }

  @Override
  public RedisCluster startCluster() {
    return RedisCluster.start();
  }

  @Override
  public List<String> clientSeeds(RedisCluster cluster) {
    List<RedisServer> nodes = cluster.nodes();
    // RedisCluster finds its nodes by the ports they announce: ask it before they change.
    List<RedisServer> masters = cluster.masters();
    List<Integer> ports = start(nodes);
    Map<RedisServer, String> announced = new LinkedHashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      nodes.get(i).redis().configSet("cluster-announce-port", Integer.toString(ports.get(i)));
      announced.put(nodes.get(i), "127.0.0.1:" + ports.get(i));
    }
    Announced.await(announced);
    List<String> seeds = new ArrayList<>();
    for (RedisServer master : masters) {
      seeds.add("redis://127.0.0.1:" + ports.get(nodes.indexOf(master)));
    }
    return seeds;
  }

  /** Starts a JVM with a proxy in front of each server; returns their ports, in order. */
  private List<Integer> start(List<RedisServer> servers) {
    List<String> args = new ArrayList<>(List.of(Long.toString(roundTrip.toNanos() / 2)));
    for (RedisServer server : servers) {
      args.add(server.host() + ":" + server.port());
    }
    JvmProcess jvm = JvmProcess.start(DelayProxies.class, args.toArray(String[]::new));
    jvms.add(jvm);
    String[] line = jvm.awaitLine("PORTS", START_LIMIT).split(" ", -1);
    List<Integer> ports = new ArrayList<>();
    for (int i = 1; i < line.length; i++) {
      ports.add(Integer.parseInt(line[i]));
    }
    if (ports.size() != servers.size()) {
      throw new IllegalStateException("the proxies' JVM printed " + String.join(" ", line));
    }
    return ports;
  }

  @Override
  public void close() {
    jvms.forEach(JvmProcess::close);
  }

  /**
   * The proxies' JVM: {@code DelayProxies DELAY_NANOS HOST:PORT...} starts a delaying proxy in
   * front of each address, prints {@code PORTS <port>...} and serves until the process that started
   * it ends.
   */
  public static void main(String[] args) throws InterruptedException {
    Optional<ProcessHandle> parent = ProcessHandle.current().parent();
    if (parent.isPresent()) {
      CompletableFuture<?> unused =
          parent.get().onExit().thenRun(() -> Runtime.getRuntime().halt(0));
    }
    Duration delay = Duration.ofNanos(Long.parseLong(args[0]));
    StringBuilder ports = new StringBuilder("PORTS");
    for (int i = 1; i < args.length; i++) {
      int colon = args[i].lastIndexOf(':');
      FaultProxy proxy =
          FaultProxy.start(
              args[i].substring(0, colon), Integer.parseInt(args[i].substring(colon + 1)));
      proxy.delay(delay);
      ports.append(' ').append(proxy.port());
    }
    System.out.println(ports);
    System.out.flush();
    new CountDownLatch(1).await(); // serves until killed or orphaned
  }
}
