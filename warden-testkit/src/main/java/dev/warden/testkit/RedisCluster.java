package dev.warden.testkit;

import dev.warden.testkit.ClusterNodes.Line;
import dev.warden.testkit.ClusterNodes.Topology;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A real Redis Cluster of {@code redis-server} processes on free ports of 127.0.0.1, for tests: by
 * default 3 masters with 1 replica each and {@code cluster-node-timeout} 1000 ms, with faults at
 * hand (failovers, kills, restarts, freezes, paused replication, lost writes, slot migration).
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start()) {
 *   RedisClusterClient client = RedisClusterClient.create(cluster.seeds().get(0));
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Nodes.</b> Each node is a {@link RedisServer} (so {@link RedisServer#redis()}, {@link
 * RedisServer#port()} and {@link RedisServer#uri()} work on it) started with {@code
 * --cluster-enabled yes}, its own {@code nodes.conf}, an explicit free bus port ({@code
 * --cluster-port}), no persistence and {@code --repl-diskless-sync-delay 0}; its log is {@code
 * redis.log} in its temporary directory. Roles change with failovers: {@link #masters()}, {@link
 * #masterOf(String)} and {@link #replicaOf(RedisServer)} ask the cluster each time. Use the
 * cluster's fault methods rather than the node's own {@code kill}, {@code restart} and {@code
 * pause}, so the cluster knows which nodes to leave out of its waits.
 *
 * <p><b>Waiting.</b> Methods that change the topology return once every live node (running and not
 * frozen by {@link #freeze}) sees the change; each names its wait and its limit, and throws {@link
 * IllegalStateException} quoting what was still wrong when the limit passes. Limits scale with the
 * node timeout: at least 15 s, or 10 × node timeout. Measured on a busy 2-core machine with the
 * default node timeout: start 3.2 s, a graceful failover under 1 s, a killed master replaced after
 * 2.2–2.8 s.
 *
 * <p><b>Failover spacing.</b> A replica that won an election a moment ago can "win" again without a
 * new epoch and then revert, leaving two nodes claiming the same slots. So {@link #failover} first
 * waits until 4 × node timeout + 1 s have passed since the last failover of the same shard (made by
 * {@code failover}, or expected after {@link #kill} of a master).
 *
 * <p><b>Behind proxies.</b> A cluster started by {@link #startBehindProxies()} has two {@link
 * FaultProxy}s in front of every node, which the node announces ({@code cluster-announce-ip},
 * {@code -port}, {@code -bus-port}): {@link #proxyOf} carries its clients' connections and its
 * replicas' links to it, {@link #busProxyOf} the other nodes' cluster bus links to it. So
 * blackholing its {@code proxyOf} cuts a master off from its clients and replicas while the cluster
 * still sees it (no failover), and {@link #isolate} cuts every connection to and from a node (each
 * node makes its own connections from an address of its own, {@code bind-source-addr}, which the
 * others' proxies tell apart), so that the others fail it over. The proxies are per node, shared by
 * every client (a node announces one address), so they cut a node off, not one client. {@link
 * #seeds()} names the proxies; the testkit's own admin connections ({@link RedisServer#redis()}) go
 * to the nodes directly.
 *
 * <p><b>Lifecycle and thread-safety.</b> {@link #close()} stops every node and deletes their
 * directories; the testkit's shutdown hook kills any node still running when the JVM exits. All
 * methods are thread-safe; those that change the cluster are serialized.
 *
 * <p>Requires {@code redis-server} and {@code redis-cli} 7.0 or later on the {@code PATH}, or the
 * server that {@code -Dwarden.server} names ({@link ServerBinary}) and a CLI beside it.
 *
 * @since 0.2
 */
public final class RedisCluster implements AutoCloseable {

  /** How {@link #failover(RedisServer, Mode)} asks a replica to take over its master's slots. */
  public enum Mode {
    /**
     * {@code CLUSTER FAILOVER}: the master stops writes, the replica catches up and takes over; no
     * acknowledged write is lost. Needs the master reachable.
     */
    GRACEFUL,
    /**
     * {@code CLUSTER FAILOVER FORCE}: no handshake with the master, but an election among the
     * masters; writes the replica has not received are lost.
     */
    FORCE,
    /**
     * {@code CLUSTER FAILOVER TAKEOVER}: no handshake and no election; the replica bumps the epoch
     * itself. Writes it has not received are lost.
     */
    TAKEOVER
  }

  private static final String HOST = "127.0.0.1";
  private static final int SLOTS = SlotHash.SLOT_COUNT;
  private static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MIN_WAIT = Duration.ofSeconds(15);
  private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CLI_TIMEOUT = Duration.ofSeconds(5);
  private static final int MIGRATE_BATCH = 100;
  private static final long MIGRATE_TIMEOUT_MILLIS = 5000;
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final List<RedisServer> nodes;
  private final Duration nodeTimeout;
  private final Duration waitLimit;
  // Filled while starting behind proxies, before the cluster is handed out; read-only after.
  private final Map<RedisServer, FaultProxy> proxies = new ConcurrentHashMap<>();
  private final Map<RedisServer, FaultProxy> busProxies = new ConcurrentHashMap<>();
  // Read by the waits without the monitor.
  private final Set<RedisServer> isolated = ConcurrentHashMap.newKeySet();

  // Read by the waits without the monitor.
  private final Map<RedisServer, Instant> frozenUntil = new ConcurrentHashMap<>();
  // Guarded by this: when each node's shard last failed over (or is expected to).
  private final Map<RedisServer, Instant> lastFailover = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private RedisCluster(List<RedisServer> nodes, Duration nodeTimeout) {
    this.nodes = List.copyOf(nodes);
    this.nodeTimeout = nodeTimeout;
    Duration scaled = nodeTimeout.multipliedBy(10);
    this.waitLimit = scaled.compareTo(MIN_WAIT) > 0 ? scaled : MIN_WAIT;
  }

  /**
   * Starts 3 masters with 1 replica each and a node timeout of 1000 ms, and returns once the
   * cluster is healthy (see {@link #awaitHealthy()}); about 3.2 s.
   *
   * @throws IllegalStateException if a node does not start, {@code redis-cli --cluster create}
   *     fails, or the cluster is not healthy within 30 s
   */
  public static RedisCluster start() {
    return start(3, 1, DEFAULT_NODE_TIMEOUT);
  }

  /**
   * Starts {@code masters} masters with {@code replicasPerMaster} replicas each (all nodes started
   * in parallel, the cluster made by {@code redis-cli --cluster create --cluster-replicas}), and
   * returns once the cluster is healthy (see {@link #awaitHealthy()}).
   *
   * @param masters at least 3 (the minimum {@code redis-cli --cluster create} accepts)
   * @param replicasPerMaster 0 or more
   * @param nodeTimeout {@code cluster-node-timeout}, at least 100 ms, in whole milliseconds: how
   *     long a node may be unreachable before the others fail it over
   * @throws IllegalArgumentException if an argument is out of range
   * @throws IllegalStateException if a node does not start, {@code redis-cli --cluster create}
   *     fails, or the cluster is not healthy within 30 s (or 10 × node timeout if longer); every
   *     node started so far is stopped
   */
  public static RedisCluster start(int masters, int replicasPerMaster, Duration nodeTimeout) {
    return start(masters, replicasPerMaster, nodeTimeout, /* proxied= */ false, RedisServer::start);
  }

  /**
   * Starts 3 masters with 1 replica each, like {@link #start()}, with two {@link FaultProxy}s in
   * front of every node through which everything reaches it (see the class comment): {@link
   * #proxyOf} for clients and replication, {@link #busProxyOf} for the cluster bus.
   *
   * @throws IllegalStateException if a node does not start, {@code redis-cli --cluster create}
   *     fails, or the cluster is not healthy within 30 s
   * @since 0.2
   */
  public static RedisCluster startBehindProxies() {
    return start(3, 1, DEFAULT_NODE_TIMEOUT, /* proxied= */ true, RedisServer::start);
  }

  /**
   * Starts 3 masters with 1 replica each, like {@link #start()}, with {@code nodeArgs} added to
   * every node's command line: e.g. {@code --bind 127.0.0.1 10.213.0.1 --cluster-announce-ip
   * 10.213.0.1}, for clients that reach the nodes at another address of this machine (the
   * benchmark's network namespace). The testkit's own connections still use 127.0.0.1.
   *
   * @throws IllegalStateException if a node does not start, {@code redis-cli --cluster create}
   *     fails, or the cluster is not healthy within 30 s
   * @since 0.2
   */
  public static RedisCluster startWithNodeArgs(String... nodeArgs) {
    Objects.requireNonNull(nodeArgs, "nodeArgs must not be null");
    List<String> extra = List.of(nodeArgs);
    return start(
        3,
        1,
        DEFAULT_NODE_TIMEOUT,
        /* proxied= */ false,
        args -> {
          List<String> all = new ArrayList<>(List.of(args));
          all.addAll(extra);
          return RedisServer.start(all.toArray(String[]::new));
        });
  }

  /**
   * Starts 3 masters with 1 replica each, like {@link #start()}, each node also taking TLS
   * connections on a port of its own ({@link RedisServer#startWithTls}) and using TLS for the
   * cluster bus and replication ({@code tls-cluster yes}, {@code tls-replication yes}). A TLS
   * client is told the nodes' TLS ports ({@code CLUSTER SLOTS} answers a TLS connection with them);
   * {@link #tlsSeeds()} names the masters' TLS ports. The plain ports stay open for the testkit's
   * own connections. Each file is PEM; the server certificate also serves as the client certificate
   * of the nodes' own connections, so it must allow client authentication.
   *
   * @param requireClientCertificates whether a TLS client must present a certificate signed by
   *     {@code caCertificates} ({@code tls-auth-clients yes})
   * @throws IllegalStateException if a node does not start, {@code redis-cli --cluster create}
   *     fails, or the cluster is not healthy within 30 s
   * @since 0.2
   */
  public static RedisCluster startWithTls(
      Path certificate, Path privateKey, Path caCertificates, boolean requireClientCertificates) {
    Objects.requireNonNull(certificate, "certificate must not be null");
    Objects.requireNonNull(privateKey, "privateKey must not be null");
    Objects.requireNonNull(caCertificates, "caCertificates must not be null");
    return start(
        3,
        1,
        DEFAULT_NODE_TIMEOUT,
        /* proxied= */ false,
        args -> {
          List<String> all = new ArrayList<>(List.of(args));
          all.addAll(List.of("--tls-cluster", "yes", "--tls-replication", "yes"));
          return RedisServer.startWithTls(
              certificate,
              privateKey,
              caCertificates,
              requireClientCertificates,
              all.toArray(String[]::new));
        });
  }

  /**
   * Returns the TLS URIs of the current {@link #masters()} ({@code "rediss://127.0.0.1:<tls
   * port>"}) of a cluster started by {@link #startWithTls}, to seed a TLS cluster client with.
   *
   * @throws IllegalStateException if the cluster was started without TLS
   * @since 0.2
   */
  public List<String> tlsSeeds() {
    List<String> uris = new ArrayList<>();
    for (RedisServer master : masters()) {
      uris.add(master.tlsUri());
    }
    return List.copyOf(uris);
  }

  private static RedisCluster start(
      int masters,
      int replicasPerMaster,
      Duration nodeTimeout,
      boolean proxied,
      Function<String[], RedisServer> starter) {
    if (masters < 3) {
      throw new IllegalArgumentException("masters must be at least 3: " + masters);
    }
    if (replicasPerMaster < 0) {
      throw new IllegalArgumentException(
          "replicasPerMaster must not be negative: " + replicasPerMaster);
    }
    Objects.requireNonNull(nodeTimeout, "nodeTimeout must not be null");
    if (nodeTimeout.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("nodeTimeout must be at least 100 ms: " + nodeTimeout);
    }
    int count = masters * (1 + replicasPerMaster);
    List<RedisServer> started = ClusterStart.nodes(count, nodeTimeout, starter);
    RedisCluster cluster = new RedisCluster(started, nodeTimeout);
    try {
      if (proxied) {
        cluster.putBehindProxies();
      }
      cluster.create(replicasPerMaster);
      cluster.awaitHealthy(
          CREATE_TIMEOUT.compareTo(cluster.waitLimit) > 0 ? CREATE_TIMEOUT : cluster.waitLimit);
      return cluster;
    } catch (RuntimeException e) {
      try {
        cluster.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * Returns the proxy through which clients and replicas reach {@code node}, in a cluster started
   * by {@link #startBehindProxies()}.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   * @throws IllegalStateException if the cluster was not started behind proxies
   * @since 0.2
   */
  public FaultProxy proxyOf(RedisServer node) {
    return proxy(proxies, node);
  }

  /**
   * Returns the proxy through which the other nodes reach {@code node}'s cluster bus, in a cluster
   * started by {@link #startBehindProxies()}.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   * @throws IllegalStateException if the cluster was not started behind proxies
   * @since 0.2
   */
  public FaultProxy busProxyOf(RedisServer node) {
    return proxy(busProxies, node);
  }

  /**
   * Cuts {@code node} off from everything and returns at once: every connection to it ({@link
   * FaultProxy#blackhole()} on both its proxies: clients, replicas, the other nodes' cluster bus)
   * and every connection it makes ({@link FaultProxy#blackholeFrom} its source address on the
   * others' proxies: its cluster bus links, its replication link). If it is a master, the others
   * fail it over to its replica after about 2–3 node timeouts (counted as a failover for {@link
   * #failover}'s spacing); meanwhile it keeps its view. The cluster's waits leave it out until
   * {@link #heal}.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   * @throws IllegalStateException if the cluster was not started behind proxies
   * @since 0.2
   */
  public synchronized void isolate(RedisServer node) {
    requireOpen();
    FaultProxy proxy = proxyOf(node);
    if (node.isRunning() && !isFrozen(node)) {
      Topology own = view(node);
      Line self = own.self();
      if (self != null && self.isMaster() && !self.slots.isEmpty()) {
        stamp(shardOf(own, self), Instant.now().plus(nodeTimeout.multipliedBy(3)));
      }
    }
    isolated.add(node);
    proxy.blackhole();
    busProxyOf(node).blackhole();
    for (RedisServer other : nodes) {
      if (other != node) {
        proxyOf(other).blackholeFrom(sourceAddress(node));
        busProxyOf(other).blackholeFrom(sourceAddress(node));
      }
    }
  }

  /**
   * Ends an {@link #isolate} of {@code node} (or any fault of its proxies) at once: what was held
   * is delivered. Does not wait: {@link #awaitHealthy()} does.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   * @throws IllegalStateException if the cluster was not started behind proxies
   * @since 0.2
   */
  public synchronized void heal(RedisServer node) {
    proxyOf(node).heal();
    busProxyOf(node).heal();
    for (RedisServer other : nodes) {
      if (other != node) {
        proxyOf(other).healFrom(sourceAddress(node));
        busProxyOf(other).healFrom(sourceAddress(node));
      }
    }
    isolated.remove(node);
  }

  private FaultProxy proxy(Map<RedisServer, FaultProxy> of, RedisServer node) {
    requireMember(node);
    if (proxies.isEmpty()) {
      throw new IllegalStateException(this + " was not started behind proxies");
    }
    return of.get(node);
  }

  /** The port clients reach a node on: its proxy's, behind proxies. */
  private int announcedPort(RedisServer node) {
    FaultProxy proxy = proxies.get(node);
    return proxy != null ? proxy.port() : node.port();
  }

  /**
   * Starts both proxies of every node, and has the node announce them (also after restarts) and
   * make its own connections from an address of its own ({@link #sourceAddress}), by which the
   * others' proxies tell them apart.
   */
  private void putBehindProxies() {
    for (RedisServer node : nodes) {
      int busPort = Integer.parseInt(node.redis().configGet("cluster-port").get("cluster-port"));
      FaultProxy proxy = FaultProxy.start(node);
      proxies.put(node, proxy);
      FaultProxy bus = FaultProxy.start(HOST, busPort);
      busProxies.put(node, bus);
      node.keepOnRestart(
          "cluster-announce-ip",
          HOST,
          "cluster-announce-port",
          Integer.toString(proxy.port()),
          "cluster-announce-bus-port",
          Integer.toString(bus.port()),
          "bind-source-addr",
          sourceAddress(node));
    }
  }

  /**
   * The loopback address a node behind proxies makes its own connections from (its cluster bus
   * links and its replication link): {@code 127.0.0.<10 + its index>}. The nodes see only their
   * proxies' 127.0.0.1, so protected mode does not mind.
   */
  private String sourceAddress(RedisServer node) {
    return "127.0.0." + (10 + nodes.indexOf(node));
  }

  /** Returns the node timeout the cluster was started with. */
  public Duration nodeTimeout() {
    return nodeTimeout;
  }

  /** Returns every node, running or not, in the order they were started; the list never changes. */
  public List<RedisServer> nodes() {
    return nodes;
  }

  /**
   * Returns the masters that own slots now, ordered by their lowest slot, as the first live node
   * sees them.
   */
  public List<RedisServer> masters() {
    Topology view = view(firstLiveNode());
    List<Line> owners = new ArrayList<>();
    for (Line line : view.lines) {
      if (line.isMaster() && !line.slots.isEmpty() && !line.failed()) {
        owners.add(line);
      }
    }
    owners.sort(Comparator.comparingInt(line -> line.slots.nextSetBit(0)));
    List<RedisServer> result = new ArrayList<>();
    for (Line line : owners) {
      result.add(nodeAt(line.port));
    }
    return List.copyOf(result);
  }

  /**
   * Returns the URIs of the current {@link #masters()} ({@code "redis://127.0.0.1:<port>"}), to
   * seed a cluster client with; behind proxies, those of their proxies.
   */
  public List<String> seeds() {
    List<String> uris = new ArrayList<>();
    for (RedisServer master : masters()) {
      uris.add("redis://" + HOST + ":" + announcedPort(master));
    }
    return List.copyOf(uris);
  }

  /**
   * Returns the node that owns {@code key}'s slot ({@link SlotHash#getSlot(String)}, so hash tags
   * count), as the first live node sees it.
   *
   * @throws IllegalStateException if no node owns the slot, e.g. its master was killed and not yet
   *     replaced
   */
  public RedisServer masterOf(String key) {
    return ownerOf(SlotHash.getSlot(key));
  }

  /**
   * Returns the node that owns {@code slot}, as the first live node sees it.
   *
   * @throws IllegalArgumentException if {@code slot} is not in 0..16383
   * @throws IllegalStateException if no live node owns the slot
   */
  public RedisServer ownerOf(int slot) {
    requireSlot(slot);
    Topology view = view(firstLiveNode());
    Line owner = view.ownerOf(slot);
    if (owner == null || owner.failed()) {
      throw new IllegalStateException("no live node owns slot " + slot + ":\n" + view.text);
    }
    return nodeAt(owner.port);
  }

  /**
   * Returns a replica of {@code master} (the first by start order, if it has several), as the first
   * live node sees it; killed replicas are left out.
   *
   * @throws IllegalArgumentException if {@code master} is not a node of this cluster, or has no
   *     running replica
   */
  public RedisServer replicaOf(RedisServer master) {
    requireMember(master);
    Topology view = view(firstLiveNode());
    Line masterLine = view.at(announcedPort(master));
    if (masterLine != null) {
      for (RedisServer node : nodes) {
        Line line = view.at(announcedPort(node));
        if (node.isRunning()
            && line != null
            && line.isReplica()
            && line.masterId.equals(masterLine.id)) {
          return node;
        }
      }
    }
    throw new IllegalArgumentException(master + " has no running replica:\n" + view.text);
  }

  /** Returns the node's cluster id ({@code CLUSTER MYID}), which it keeps across restarts. */
  public String idOf(RedisServer node) {
    requireMember(node);
    return node.redis().clusterMyId();
  }

  /**
   * Waits until the cluster is healthy: every live node (running, not frozen) says {@code
   * cluster_state:ok}, lists every node and none of the live ones as failed, and agrees with the
   * others on who owns which slot and which master each live replica follows; every live replica
   * says {@code master_link_status:up}. Killed nodes are left out. Waits up to 15 s (or 10 × node
   * timeout if longer).
   *
   * @throws IllegalStateException if the cluster is not healthy in time (the message says why)
   */
  public void awaitHealthy() {
    awaitHealthy(waitLimit);
  }

  /**
   * Waits until every live node routes {@code slot} to {@code owner}; up to 15 s (or 10 × node
   * timeout if longer). Use it after {@link #kill} of a master, to wait for its replica's takeover.
   *
   * @throws IllegalArgumentException if {@code slot} is not in 0..16383 or {@code owner} is not a
   *     node of this cluster
   * @throws IllegalStateException if the live nodes do not agree in time
   */
  public void awaitOwner(int slot, RedisServer owner) {
    requireSlot(slot);
    requireMember(owner);
    BitSet slots = new BitSet(SLOTS);
    slots.set(slot);
    await("every live node routes slot " + slot + " to " + owner, () -> routes(slots, owner));
  }

  /**
   * Makes {@code replica} the master of its shard with {@code CLUSTER FAILOVER [FORCE|TAKEOVER]},
   * and returns once every live node says {@code cluster_state:ok} and routes all of the old
   * master's slots to {@code replica}, and (if the old master is running and not frozen) sees the
   * old master as a replica of the new one. First waits, if needed, until 4 × node timeout + 1 s
   * have passed since the shard's last failover (see the class comment), and for {@code GRACEFUL}
   * until the replica's link to its master is up. Does not wait for the old master's replication
   * link.
   *
   * @throws IllegalArgumentException if {@code replica} is not a node of this cluster, or not a
   *     replica
   * @throws IllegalStateException if the failover is not complete within 15 s (or 10 × node timeout
   *     if longer)
   */
  public synchronized void failover(RedisServer replica, Mode mode) {
    requireOpen();
    requireMember(replica);
    Objects.requireNonNull(mode, "mode must not be null");
    Topology own = view(replica);
    Line self = own.self();
    if (self == null || !self.isReplica()) {
      throw new IllegalArgumentException(replica + " is not a replica:\n" + own.text);
    }
    Line masterLine = own.byId(self.masterId);
    if (masterLine == null) {
      throw new IllegalStateException(replica + " follows an unknown master:\n" + own.text);
    }
    List<RedisServer> shard = shardOf(own, masterLine);
    awaitSpacing(shard);
    if (mode == Mode.GRACEFUL) {
      // A manual failover needs the replica in sync: one just demoted may not be linked yet.
      await(
          replica + " has its replication link up",
          () ->
              replica.redis().info("replication").contains("master_link_status:up")
                  ? null
                  : replica + " says master_link_status is not up");
    }
    BitSet slots = (BitSet) masterLine.slots.clone();
    String reply = replica.redis().clusterFailover(mode == Mode.FORCE, mode == Mode.TAKEOVER);
    if (!"OK".equals(reply)) {
      throw new IllegalStateException(replica + " refused CLUSTER FAILOVER " + mode + ": " + reply);
    }
    stamp(shard, Instant.now());
    RedisServer oldMaster = nodeAt(masterLine.port);
    await(
        "every live node routes the slots of " + oldMaster + " to " + replica,
        () -> routes(slots, replica));
    if (oldMaster.isRunning() && !isFrozen(oldMaster)) {
      // Until then, some nodes still take the old master for an (empty) master: SETSLOT to it, or
      // replicaOf(replica), would go wrong.
      await(
          "every live node sees " + oldMaster + " as a replica of " + replica,
          () -> follows(oldMaster, self.id));
    }
  }

  /**
   * Returns null if every live node sees {@code node} as a replica of the node {@code masterId}.
   */
  private String follows(RedisServer node, String masterId) {
    for (RedisServer viewer : liveNodes()) {
      Line line = view(viewer).at(announcedPort(node));
      if (line == null || !line.isReplica() || !masterId.equals(line.masterId)) {
        return viewer + " does not see " + node + " as a replica of " + masterId;
      }
    }
    return null;
  }

  /**
   * Kills {@code node} with SIGKILL and returns once its process has exited. Does not wait for a
   * failover: if it was a master, its replica takes over after about 2–3 node timeouts; wait for
   * that with {@link #awaitOwner(int, RedisServer)}. Its data is lost (no persistence); its {@code
   * nodes.conf} is kept for {@link #restart}.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   */
  public synchronized void kill(RedisServer node) {
    requireOpen();
    requireMember(node);
    if (node.isRunning() && !isFrozen(node)) {
      Topology own = view(node);
      Line self = own.self();
      if (self != null && self.isMaster() && !self.slots.isEmpty()) {
        // The election comes after failure detection: count it as a failover a little later.
        stamp(shardOf(own, self), Instant.now().plus(nodeTimeout.multipliedBy(3)));
      }
    }
    frozenUntil.remove(node);
    node.kill();
  }

  /**
   * Starts {@code node} again (after {@link #kill}; a running node is shut down first) on the same
   * ports with the same {@code nodes.conf}, and returns once the cluster is healthy again (see
   * {@link #awaitHealthy()}): a master that was replaced meanwhile comes back as a replica of its
   * successor, and is linked to it when this returns. A master restarted before its replica took
   * over keeps its slots, with no data.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   * @throws IllegalStateException if the node does not start or the cluster is not healthy in time
   */
  public synchronized void restart(RedisServer node) {
    requireOpen();
    requireMember(node);
    frozenUntil.remove(node);
    node.restart();
    awaitHealthy(waitLimit);
  }

  /**
   * Freezes {@code node} with SIGSTOP and returns at once; it resumes (SIGCONT) after {@code
   * duration}. A frozen node accepts connections but answers nothing; frozen longer than the node
   * timeout, a master is failed over by its replica. The cluster's waits leave it out meanwhile.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster, or {@code
   *     duration} is null or negative
   * @throws IllegalStateException if the node is not running
   */
  public synchronized void freeze(RedisServer node, Duration duration) {
    requireOpen();
    requireMember(node);
    node.pause(duration);
    frozenUntil.put(node, Instant.now().plus(duration));
  }

  /**
   * Stops {@code replica} from applying its master's replication stream for {@code duration} (or
   * until {@link #resumeReplication}) with {@code CLIENT PAUSE <ms> WRITE}, and returns at once.
   * The replica still answers reads and cluster commands, so it can be failed over meanwhile;
   * writes it has not applied are then lost, and {@code WAIT} on the master counts it as not
   * acknowledging.
   *
   * @throws IllegalArgumentException if {@code replica} is not a node of this cluster, or not a
   *     replica, or {@code duration} is not positive
   */
  public void pauseReplication(RedisServer replica, Duration duration) {
    requireOpen();
    requireMember(replica);
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration must be positive: " + duration);
    }
    Line self = view(replica).self();
    if (self == null || !self.isReplica()) {
      throw new IllegalArgumentException(replica + " is not a replica");
    }
    cli(replica, "CLIENT", "PAUSE", Long.toString(Math.max(1, duration.toMillis())), "WRITE");
  }

  /**
   * Ends a {@link #pauseReplication} at once with {@code CLIENT UNPAUSE}; the node applies what it
   * has received since, unless it has become a master meanwhile, in which case those writes are
   * discarded. Harmless if the node is not paused.
   *
   * @throws IllegalArgumentException if {@code node} is not a node of this cluster
   */
  public void resumeReplication(RedisServer node) {
    requireOpen();
    requireMember(node);
    cli(node, "CLIENT", "UNPAUSE");
  }

  /**
   * Makes {@code writes} be lost on a failover, deterministically (no timing involved): stops every
   * running replica of {@code master} from applying the replication stream ({@code CLIENT PAUSE
   * WRITE}), runs {@code writes} (which should write to {@code master}: {@code WAIT} there returns
   * 0), makes the first of those replicas master with {@link Mode#TAKEOVER}, and lets the replicas
   * go on ({@code CLIENT UNPAUSE}), which discards the postponed writes. Returns the new master,
   * once {@link #failover} would. First waits out the shard's failover spacing, before pausing
   * anything. The replicas are resumed even if {@code writes} or the failover throws.
   *
   * @throws IllegalArgumentException if {@code master} is not a master of this cluster with slots
   *     and a running replica
   * @throws IllegalStateException if the failover is not complete in time
   */
  public synchronized RedisServer loseWrites(RedisServer master, Runnable writes) {
    requireOpen();
    requireMember(master);
    Objects.requireNonNull(writes, "writes must not be null");
    Topology view = view(master);
    Line self = view.self();
    if (self == null || !self.isMaster() || self.slots.isEmpty()) {
      throw new IllegalArgumentException(master + " is not a master with slots:\n" + view.text);
    }
    List<RedisServer> shard = shardOf(view, self);
    List<RedisServer> replicas = new ArrayList<>();
    for (RedisServer node : shard) {
      if (node != master && node.isRunning() && !isFrozen(node)) {
        replicas.add(node);
      }
    }
    if (replicas.isEmpty()) {
      throw new IllegalArgumentException(master + " has no running replica:\n" + view.text);
    }
    awaitSpacing(shard);
    // Long enough for the failover's own wait; unpaused below in any case.
    String pauseMillis = Long.toString(waitLimit.plusSeconds(10).toMillis());
    List<RedisServer> paused = new ArrayList<>();
    try {
      for (RedisServer replica : replicas) {
        cli(replica, "CLIENT", "PAUSE", pauseMillis, "WRITE");
        paused.add(replica);
      }
      writes.run();
      failover(replicas.get(0), Mode.TAKEOVER);
    } catch (RuntimeException | Error e) {
      for (RedisServer replica : paused) {
        try {
          cli(replica, "CLIENT", "UNPAUSE");
        } catch (RuntimeException unpausing) {
          e.addSuppressed(unpausing);
        }
      }
      throw e;
    }
    for (RedisServer replica : paused) {
      cli(replica, "CLIENT", "UNPAUSE");
    }
    return replicas.get(0);
  }

  /**
   * Moves {@code slot} and its keys to the master {@code target}: {@code CLUSTER SETSLOT IMPORTING}
   * on the target, {@code MIGRATING} on the owner, {@code MIGRATE ... KEYS} in batches of 100, then
   * {@code SETSLOT NODE} on the target, the old owner and every other master; returns once every
   * live node routes the slot to {@code target} (up to 15 s, or 10 × node timeout). Does nothing if
   * {@code target} owns the slot already.
   *
   * @throws IllegalArgumentException if {@code slot} is not in 0..16383, or {@code target} is not a
   *     master of this cluster
   * @throws IllegalStateException if the slot has no owner, or the move does not finish in time
   */
  public synchronized void migrateSlot(int slot, RedisServer target) {
    requireOpen();
    requireSlot(slot);
    requireMember(target);
    Topology view = view(target);
    Line targetLine = view.self();
    if (targetLine == null || !targetLine.isMaster()) {
      throw new IllegalArgumentException(target + " is not a master:\n" + view.text);
    }
    Line ownerLine = view.ownerOf(slot);
    if (ownerLine == null) {
      throw new IllegalStateException("no node owns slot " + slot + ":\n" + view.text);
    }
    if (ownerLine.port == announcedPort(target)) {
      return;
    }
    RedisServer source = nodeAt(ownerLine.port);
    target.redis().clusterSetSlotImporting(slot, ownerLine.id);
    source.redis().clusterSetSlotMigrating(slot, targetLine.id);
    while (true) {
      List<String> keys = source.redis().clusterGetKeysInSlot(slot, MIGRATE_BATCH);
      if (keys.isEmpty()) {
        break;
      }
      source
          .redis()
          .migrate(HOST, target.port(), 0, MIGRATE_TIMEOUT_MILLIS, MigrateArgs.Builder.keys(keys));
    }
    target.redis().clusterSetSlotNode(slot, targetLine.id);
    source.redis().clusterSetSlotNode(slot, targetLine.id);
    // Only to speed things up: the other nodes learn the new owner by gossip anyway.
    for (RedisServer other : liveNodes()) {
      if (other != target && other != source) {
        try {
          Line self = view(other).self();
          if (self != null && self.isMaster()) {
            other.redis().clusterSetSlotNode(slot, targetLine.id);
          }
        } catch (RedisException e) {
          // Demoted meanwhile: its new master tells it.
        }
      }
    }
    awaitOwner(slot, target);
  }

  /**
   * Stops every node and deletes their directories; stops them all even if some fail. Idempotent.
   *
   * @throws RuntimeException the first failure to stop a node, with the others suppressed
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    proxies.values().forEach(FaultProxy::close);
    busProxies.values().forEach(FaultProxy::close);
    for (RedisServer node : nodes) {
      try {
        node.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Returns a description naming every node's port, for test failure messages. */
  @Override
  public String toString() {
    List<Integer> ports = new ArrayList<>();
    for (RedisServer node : nodes) {
      ports.add(node.port());
    }
    return "RedisCluster" + ports + (closed ? " (closed)" : "");
  }

  // ---- start-up

  private void create(int replicasPerMaster) {
    List<String> command = new ArrayList<>(List.of("--cluster", "create"));
    for (RedisServer node : nodes) {
      command.add(HOST + ":" + announcedPort(node));
    }
    command.addAll(
        List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
    String output;
    try {
      output =
          RedisCli.call(HOST, nodes.get(0).port(), CREATE_TIMEOUT, command.toArray(new String[0]));
    } catch (IOException e) {
      throw new IllegalStateException("redis-cli --cluster create failed: " + e.getMessage(), e);
    }
    if (!output.contains("All " + SLOTS + " slots covered")) {
      throw new IllegalStateException(
          "redis-cli --cluster create did not cover all slots:\n" + output);
    }
  }

  // ---- waits

  private void awaitHealthy(Duration limit) {
    await("the cluster is healthy", limit, this::unhealthy);
  }

  private void await(String what, Supplier<String> problem) {
    await(what, waitLimit, problem);
  }

  /**
   * Polls {@code problem} until it returns null; throws with its last answer after {@code limit}.
   */
  private void await(String what, Duration limit, Supplier<String> problem) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      requireOpen();
      String last;
      try {
        last = problem.get();
      } catch (RedisException e) {
        last = e.toString();
      }
      if (last == null) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "waited " + limit.toMillis() + " ms until " + what + "; still: " + last);
      }
      // The poll interval: the state polled has no event to wait on.
      LockSupport.parkNanos(POLL_NANOS);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting until " + what);
      }
    }
  }

  /** Returns null if the cluster is healthy, or what is wrong. */
  private String unhealthy() {
    String reference = null;
    RedisServer referenceNode = null;
    for (RedisServer node : liveNodes()) {
      String info = node.redis().clusterInfo();
      if (!info.contains("cluster_state:ok")) {
        return node + " is not in cluster_state:ok";
      }
      Topology view = view(node);
      if (view.lines.size() != nodes.size()) {
        return node + " knows " + view.lines.size() + " nodes, not " + nodes.size();
      }
      for (RedisServer other : liveNodes()) {
        Line line = view.at(announcedPort(other));
        if (line == null || line.failed() || line.flags.contains("handshake")) {
          return node + " does not see " + other + " as healthy:\n" + view.text;
        }
      }
      Line self = view.self();
      if (self != null && self.isReplica()) {
        String replication = node.redis().info("replication");
        if (!replication.contains("master_link_status:up")) {
          return node + " has no replication link up";
        }
      }
      String summary = summary(view);
      if (reference == null) {
        reference = summary;
        referenceNode = node;
      } else if (!reference.equals(summary)) {
        return node + " sees " + summary + " but " + referenceNode + " sees " + reference;
      }
    }
    return reference == null ? "no node is live" : null;
  }

  /** Returns null if every live node is ok and routes all of {@code slots} to {@code owner}. */
  private String routes(BitSet slots, RedisServer owner) {
    for (RedisServer node : liveNodes()) {
      if (!node.redis().clusterInfo().contains("cluster_state:ok")) {
        return node + " is not in cluster_state:ok";
      }
      Topology view = view(node);
      for (int slot = slots.nextSetBit(0); slot >= 0; slot = slots.nextSetBit(slot + 1)) {
        Line line = view.ownerOf(slot);
        if (line == null || line.port != announcedPort(owner)) {
          return node + " routes slot " + slot + " to " + (line == null ? "nobody" : line.port);
        }
      }
    }
    return null;
  }

  /** Slot owners by port, and the master port of each live replica: what live nodes must share. */
  private String summary(Topology view) {
    Map<Integer, String> parts = new TreeMap<>();
    for (Line line : view.lines) {
      RedisServer node = nodeAt(line.port);
      if (line.isMaster() && !line.slots.isEmpty()) {
        parts.put(line.port, "master " + line.slots);
      } else if (line.isReplica() && node.isRunning() && !isFrozen(node)) {
        Line master = view.byId(line.masterId);
        parts.put(line.port, "replica of " + (master == null ? line.masterId : master.port));
      }
    }
    return parts.toString();
  }

  private void awaitSpacing(List<RedisServer> shard) {
    Instant last = Instant.MIN;
    for (RedisServer node : shard) {
      Instant at = lastFailover.get(node);
      if (at != null && at.isAfter(last)) {
        last = at;
      }
    }
    if (last.equals(Instant.MIN)) {
      return;
    }
    Instant allowed = last.plus(nodeTimeout.multipliedBy(4)).plusSeconds(1);
    // Waiting for time itself: Redis reuses a won vote until then.
    while (true) {
      Duration left = Duration.between(Instant.now(), allowed);
      if (left.isNegative() || left.isZero()) {
        return;
      }
      LockSupport.parkNanos(left.toNanos());
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while spacing failovers");
      }
    }
  }

  private void stamp(List<RedisServer> shard, Instant at) {
    for (RedisServer node : shard) {
      lastFailover.put(node, at);
    }
  }

  // ---- topology

  private List<RedisServer> shardOf(Topology view, Line master) {
    List<RedisServer> shard = new ArrayList<>();
    shard.add(nodeAt(master.port));
    for (Line line : view.lines) {
      if (line.isReplica() && master.id.equals(line.masterId)) {
        shard.add(nodeAt(line.port));
      }
    }
    return shard;
  }

  private List<RedisServer> liveNodes() {
    List<RedisServer> live = new ArrayList<>();
    for (RedisServer node : nodes) {
      if (node.isRunning() && !isFrozen(node) && !isolated.contains(node)) {
        live.add(node);
      }
    }
    return live;
  }

  private RedisServer firstLiveNode() {
    requireOpen();
    List<RedisServer> live = liveNodes();
    if (live.isEmpty()) {
      throw new IllegalStateException(this + " has no running node");
    }
    return live.get(0);
  }

  private boolean isFrozen(RedisServer node) {
    Instant until = frozenUntil.get(node);
    return until != null && Instant.now().isBefore(until);
  }

  private static Topology view(RedisServer node) {
    return Topology.parse(node.redis().clusterNodes());
  }

  private RedisServer nodeAt(int port) {
    for (RedisServer node : nodes) {
      if (node.port() == port || announcedPort(node) == port || node.tlsPort() == port) {
        return node;
      }
    }
    throw new IllegalStateException("no node of " + this + " listens on port " + port);
  }

  private void requireMember(RedisServer node) {
    Objects.requireNonNull(node, "node must not be null");
    if (!nodes.contains(node)) {
      throw new IllegalArgumentException(node + " is not a node of " + this);
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private static void requireSlot(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException("slot must be in 0.." + (SLOTS - 1) + ": " + slot);
    }
  }

  private static void cli(RedisServer node, String... command) {
    try {
      String reply = RedisCli.call(HOST, node.port(), CLI_TIMEOUT, command);
      if (!"OK".equals(reply)) {
        throw new IllegalStateException(
            node + " answered " + reply + " to " + String.join(" ", command));
      }
    } catch (IOException e) {
      throw new IllegalStateException(node + ": " + e.getMessage(), e);
    }
  }
}
