package dev.warden.testkit;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A Redis Sentinel set for tests: a master and 2 replicas ({@link RedisServer}s, the replicas
 * started with {@code --replicaof}) watched by 3 {@code redis-sentinel} processes, all on free
 * ports of 127.0.0.1. The sentinels use quorum 2, {@code down-after-milliseconds 1000}, {@code
 * failover-timeout 3000} and {@code parallel-syncs 2}; each has its own config file (which it
 * rewrites) in a temporary directory.
 *
 * <pre>{@code
 * try (RedisSentinels sentinels = RedisSentinels.start()) {
 *   RedisClient client = RedisClient.create(sentinels.uri());  // redis-sentinel://...#wm
 *   ...
 *   RedisServer promoted = sentinels.failover();                // SENTINEL FAILOVER, awaited
 * }
 * }</pre>
 *
 * <p><b>Lifecycle.</b> {@link #start()} returns once every sentinel sees the master with 2 replicas
 * and 2 other sentinels, and every replica's link is up: about 3.5 s (sentinels discover each other
 * through hellos sent every 2 s). {@link #close()} kills the sentinels, stops the data nodes and
 * deletes the directory; a JVM shutdown hook kills any process still running when the JVM exits.
 *
 * <p><b>Failovers.</b> {@link #failover()} needs no vote and takes 1–2 s. After {@link
 * #killMaster()}, the sentinels notice within {@code down-after-milliseconds} and elect a leader;
 * this usually takes 2–3 s, but a split vote costs {@code failover-timeout} and more, so allow
 * about 15 s. A failed-over master that is still alive stays a writable master until a sentinel
 * converts it into a replica, about 10 s later (Sentinel's INFO period); {@link #replicas()} lists
 * it already.
 *
 * <p><b>Behind proxies.</b> A set started by {@link #startBehindProxies()} has a {@link FaultProxy}
 * in front of every data node and every sentinel, and every process reaches the others through
 * them: each data node announces its proxy ({@code replica-announce-ip/-port}), the sentinels
 * monitor the master through its proxy and announce their own ({@code sentinel announce-ip/-port}),
 * the replicas replicate through their master's proxy, and {@link #uri()} names the sentinels'
 * proxies. So {@code proxyOf(node).blackhole()} cuts every connection <em>to</em> that node, from
 * clients, sentinels and replicas alike (its own connections to others still work): the sentinels
 * see a partitioned master as down and fail it over, as they would across a real partition, and
 * bring it back as a replica once healed. The proxies are per node, shared by every client (a node
 * announces one address), so they cut a node off, not one client.
 *
 * <p><b>Thread-safety.</b> All methods are thread-safe; the faults ({@link #failover()}, {@link
 * #killMaster()}) and {@link #close()} are serialized.
 *
 * <p>Requires {@code redis-server} on the {@code PATH} ({@code scripts/setup.sh} installs it), or
 * the server that {@code -Dwarden.server} names ({@link ServerBinary}); the sentinels run the same
 * binary with {@code --sentinel}.
 *
 * @since 0.2
 */
public final class RedisSentinels implements AutoCloseable {
  /** The master name used by {@link #start()}. */
  public static final String DEFAULT_MASTER_NAME = "wm";

  private static final String HOST = RedisProcess.HOST;
  private static final String EXECUTABLE = "sentinel";
  private static final int REPLICAS = 2;
  private static final int SENTINELS = 3;
  private static final int START_ATTEMPTS = 5;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(30);
  private static final RedisProcess.Readiness SENTINEL_READINESS =
      new RedisProcess.Readiness(READY_TIMEOUT, Duration.ofSeconds(2), 50);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 50;
  private static final Duration LOSS_PAUSE = Duration.ofSeconds(30);
  private static final String LOSS_MASTERAUTH = "warden-testkit-lost-writes";

  private final String masterName;
  private final Path directory;
  private final boolean proxied;
  private final Tls tls; // null unless started with TLS
  // Filled while starting, before the set is handed out; read-only after.
  private final Map<RedisServer, FaultProxy> proxies = new ConcurrentHashMap<>();
  private final List<RedisServer> servers = new ArrayList<>();
  private final List<Sentinel> sentinels = new ArrayList<>();
  private final ClientResources resources;
  private final RedisClient client;

  private final List<RedisServer> pausedReplicas = new ArrayList<>(); // guarded by this

  private volatile boolean closed;

  /** The TLS files of a set started with TLS, as {@link RedisServer#startWithTls} takes them. */
  private record Tls(
      Path certificate, Path privateKey, Path caCertificates, boolean requireClientCertificates) {
    /** The settings that make a process take TLS on {@code port} and use it to reach others. */
    List<String> settings(int port) {
      return List.of(
          "tls-port " + port,
          "tls-cert-file " + certificate.toAbsolutePath(),
          "tls-key-file " + privateKey.toAbsolutePath(),
          "tls-ca-cert-file " + caCertificates.toAbsolutePath(),
          "tls-auth-clients " + (requireClientCertificates ? "yes" : "no"),
          "tls-replication yes");
    }
  }

  private RedisSentinels(String masterName, Path directory, boolean proxied, Tls tls) {
    this.masterName = masterName;
    this.directory = directory;
    this.proxied = proxied;
    this.tls = tls;
    this.resources = DefaultClientResources.create();
    this.client = RedisClient.create(resources);
  }

  /**
   * Starts a set whose master is named {@value #DEFAULT_MASTER_NAME} and returns once it is
   * healthy.
   *
   * @throws IllegalStateException if a process cannot start, or the set is not healthy within 30 s
   *     (the message quotes a sentinel's log)
   */
  public static RedisSentinels start() {
    return start(DEFAULT_MASTER_NAME);
  }

  /**
   * Starts a set whose master is named {@code masterName} and returns once it is healthy.
   *
   * @throws IllegalArgumentException if {@code masterName} is empty or contains whitespace or
   *     {@code #}
   * @throws IllegalStateException if a process cannot start, or the set is not healthy within 30 s
   */
  public static RedisSentinels start(String masterName) {
    return start(masterName, /* proxied= */ false, null);
  }

  /**
   * Starts a set like {@link #start()} in which every process also takes TLS connections, on a port
   * of its own, and uses TLS to reach the others: the data nodes as {@link
   * RedisServer#startWithTls} starts them plus {@code tls-replication yes} (replicas link to the
   * master's TLS port and announce their own), the sentinels with {@code tls-port}, the same files
   * and {@code tls-replication yes} (so they reach the nodes and each other over TLS, and name the
   * nodes' TLS ports to clients). The plain ports stay open for the testkit's own connections and
   * for clients that reach the sentinels in plain text: {@link #uri()} names the sentinels' plain
   * ports, {@link #tlsUri()} their TLS ports; either way the master a client is given is its TLS
   * port. Each file is PEM; the server certificate also serves as the client certificate of the
   * processes' own connections, so it must allow client authentication.
   *
   * @param requireClientCertificates whether a TLS client must present a certificate signed by
   *     {@code caCertificates} ({@code tls-auth-clients yes})
   * @throws IllegalStateException if a process cannot start, or the set is not healthy within 30 s
   * @since 0.2
   */
  public static RedisSentinels startWithTls(
      Path certificate, Path privateKey, Path caCertificates, boolean requireClientCertificates) {
    Objects.requireNonNull(certificate, "certificate must not be null");
    Objects.requireNonNull(privateKey, "privateKey must not be null");
    Objects.requireNonNull(caCertificates, "caCertificates must not be null");
    return start(
        DEFAULT_MASTER_NAME,
        /* proxied= */ false,
        new Tls(certificate, privateKey, caCertificates, requireClientCertificates));
  }

  /**
   * Starts a set like {@link #start()} with a {@link FaultProxy} in front of every data node and
   * every sentinel, through which every process reaches the others (see the class comment); {@link
   * #proxyOf(RedisServer)} and {@link #sentinelProxies()} return them.
   *
   * @throws IllegalStateException if a process cannot start, or the set is not healthy within 30 s
   * @since 0.2
   */
  public static RedisSentinels startBehindProxies() {
    return start(DEFAULT_MASTER_NAME, /* proxied= */ true, null);
  }

  private static RedisSentinels start(String masterName, boolean proxied, Tls tls) {
    Objects.requireNonNull(masterName, "masterName must not be null");
    if (masterName.isEmpty() || !masterName.matches("[A-Za-z0-9._:-]+")) {
      throw new IllegalArgumentException(
          "masterName must be letters, digits or ._:- only: '" + masterName + "'");
    }
    Path directory;
    try {
      directory = Files.createTempDirectory("warden-sentinels-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the sentinels", e);
    }
    Reaper.trackDirectory(directory);
    RedisSentinels set = new RedisSentinels(masterName, directory, proxied, tls);
    try {
      set.startNodes();
      set.awaitHealthy();
      return set;
    } catch (RuntimeException e) {
      try {
        set.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Returns the Lettuce URI of the set, e.g. {@code
   * "redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#wm"}: a client looks the master up
   * from the sentinels. Behind proxies, it names the sentinels' proxies.
   */
  public String uri() {
    return "redis-sentinel://"
        + sentinels.stream()
            .map(s -> HOST + ":" + (s.proxy != null ? s.proxy.port() : s.port))
            .collect(Collectors.joining(","))
        + "#"
        + masterName;
  }

  /**
   * Returns the Lettuce URI of a set started by {@link #startWithTls}, naming the sentinels' TLS
   * ports: {@code "rediss-sentinel://127.0.0.1:t1,127.0.0.1:t2,127.0.0.1:t3#wm"}.
   *
   * @throws IllegalStateException if the set was started without TLS
   * @since 0.2
   */
  public String tlsUri() {
    if (tls == null) {
      throw new IllegalStateException(this + " was started without TLS: see startWithTls");
    }
    return "rediss-sentinel://"
        + sentinels.stream().map(s -> HOST + ":" + s.tlsPort).collect(Collectors.joining(","))
        + "#"
        + masterName;
  }

  /**
   * Returns the proxy in front of a data node of a set started by {@link #startBehindProxies()}.
   *
   * @throws IllegalArgumentException if {@code node} is not a data node of this set
   * @throws IllegalStateException if the set was not started behind proxies
   * @since 0.2
   */
  public FaultProxy proxyOf(RedisServer node) {
    requireProxied();
    FaultProxy proxy = proxies.get(Objects.requireNonNull(node, "node must not be null"));
    if (proxy == null) {
      throw new IllegalArgumentException(node + " is not a data node of " + this);
    }
    return proxy;
  }

  /**
   * Returns the proxies in front of the sentinels of a set started by {@link
   * #startBehindProxies()}, in the order of {@link #sentinelPorts()}.
   *
   * @throws IllegalStateException if the set was not started behind proxies
   * @since 0.2
   */
  public List<FaultProxy> sentinelProxies() {
    requireProxied();
    return sentinels.stream().map(s -> s.proxy).collect(Collectors.toUnmodifiableList());
  }

  private void requireProxied() {
    if (!proxied) {
      throw new IllegalStateException(this + " was not started behind proxies");
    }
  }

  /**
   * The port the others reach a data node on: its proxy's, behind proxies; with TLS, its TLS port.
   */
  private int announcedPort(RedisServer node) {
    FaultProxy proxy = proxies.get(node);
    if (proxy != null) {
      return proxy.port();
    }
    return tls != null ? node.tlsPort() : node.port();
  }

  /** Returns the name the sentinels monitor the master under. */
  public String masterName() {
    return masterName;
  }

  /** Returns the sentinels' ports, in start order. */
  public List<Integer> sentinelPorts() {
    return sentinels.stream().map(s -> s.port).collect(Collectors.toUnmodifiableList());
  }

  /** Returns the three data nodes in start order: the first master, then the two replicas. */
  public List<RedisServer> servers() {
    return List.copyOf(servers);
  }

  /**
   * Returns the data node the sentinels name as master now ({@code SENTINEL
   * GET-MASTER-ADDR-BY-NAME}, the answer of most sentinels). During a failover the sentinels may
   * still name the old master: use {@link #awaitMaster(int)} to wait for a switch.
   *
   * @throws IllegalStateException if the set is closed, or no two sentinels agree
   */
  public RedisServer master() {
    requireOpen();
    Map<Integer, Integer> votes = new HashMap<>();
    for (Sentinel sentinel : sentinels) {
      votes.merge(sentinel.masterPort(masterName), 1, Integer::sum);
    }
    for (Map.Entry<Integer, Integer> vote : votes.entrySet()) {
      if (vote.getValue() > SENTINELS / 2) {
        return server(vote.getKey());
      }
    }
    throw new IllegalStateException("the sentinels disagree on the master: " + votes);
  }

  /**
   * Returns the data nodes other than {@link #master()}: after a failover, the old master is among
   * them even before it has been converted into a replica.
   */
  public List<RedisServer> replicas() {
    RedisServer master = master();
    return servers.stream().filter(s -> s != master).collect(Collectors.toUnmodifiableList());
  }

  /**
   * Forces a failover with {@code SENTINEL FAILOVER} (no vote needed) and returns the new master
   * once every sentinel names it and it answers {@code ROLE} as master. Retries while a sentinel
   * answers that a failover is in progress or that no replica is fit yet. After {@link
   * #loseNextWrites()}, the promoted replica lacks the writes made since.
   *
   * @return the promoted data node
   * @throws IllegalStateException if the set is closed, or the failover does not complete within 30
   *     s
   */
  public synchronized RedisServer failover() {
    requireOpen();
    RedisServer old = master();
    if (!pausedReplicas.isEmpty()) {
      return failoverLosingWrites(old);
    }
    long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
    requestFailover(deadline);
    return awaitNewMaster(old, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  /**
   * A planned failover that loses no acknowledged write, as an operator would run one: the master
   * stops taking writes ({@code CLIENT PAUSE WRITE}), {@code WAIT} sees every replica acknowledge
   * all it has, {@code SENTINEL FAILOVER} promotes one of them, the old master is made a replica of
   * the new one at once ({@code REPLICAOF}: a sentinel would do it only at its next look, about 10
   * s later, and until then the old master would take the writes of clients that have not moved
   * yet), and its writes resume ({@code CLIENT UNPAUSE}; those queued meanwhile are then refused as
   * a replica's). Returns the new master once every sentinel names it.
   *
   * @return the promoted data node
   * @throws IllegalStateException if the set is closed, writes are being lost ({@link
   *     #loseNextWrites()}), a replica does not catch up, or the failover does not complete within
   *     30 s
   */
  public synchronized RedisServer failoverWithoutLoss() {
    requireOpen();
    if (!pausedReplicas.isEmpty()) {
      throw new IllegalStateException("loseNextWrites() is in effect: use failover()");
    }
    RedisServer old = master();
    long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
    client(old, "PAUSE", Long.toString(FAILOVER_TIMEOUT.toMillis()), "WRITE");
    try {
      long acknowledged = old.redis().waitForReplication(REPLICAS, FAILOVER_TIMEOUT.toMillis());
      if (acknowledged < REPLICAS) {
        throw new IllegalStateException(
            acknowledged + " of " + REPLICAS + " replicas caught up with " + old + " in time");
      }
      requestFailover(deadline);
      RedisServer promoted =
          awaitNewMaster(old, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      old.redis().replicaof(HOST, announcedPort(promoted));
      return promoted;
    } finally {
      client(old, "UNPAUSE");
    }
  }

  /**
   * Makes the writes the master acknowledges from now until the next {@link #failover()} reach no
   * replica, so that the failover loses them, deterministically: a lock taken meanwhile is gone on
   * the new master while the old one still has it. Every replica stops applying the replication
   * stream ({@code CLIENT PAUSE 30000 WRITE}); {@link #failover()} then cuts each replica's link (a
   * wrong {@code masterauth}, then {@code CLIENT KILL TYPE master}, which discards the stream not
   * yet applied), ends the pause and forces the failover with {@code SENTINEL FAILOVER}, which
   * needs no vote; once a replica is promoted, the replicas get their {@code masterauth} back. The
   * old master stays a writable master, with the lost writes, until a sentinel converts it (about
   * 10 s). Call {@link #failover()} within 30 s, before the pause ends by itself.
   *
   * @throws IllegalStateException if the set is closed, or writes are being lost already
   */
  public synchronized void loseNextWrites() {
    requireOpen();
    if (!pausedReplicas.isEmpty()) {
      throw new IllegalStateException("loseNextWrites() was called already; failover() first");
    }
    for (RedisServer replica : replicas()) {
      List<Object> role = replica.redis().role();
      if (!role.isEmpty() && "slave".equals(String.valueOf(role.get(0)))) {
        client(replica, "PAUSE", Long.toString(LOSS_PAUSE.toMillis()), "WRITE");
        pausedReplicas.add(replica);
      }
    }
    if (pausedReplicas.isEmpty()) {
      throw new IllegalStateException("no replica of " + this + " is linked to the master");
    }
  }

  private RedisServer failoverLosingWrites(RedisServer old) {
    List<RedisServer> paused = List.copyOf(pausedReplicas);
    pausedReplicas.clear();
    try {
      for (RedisServer replica : paused) {
        replica.redis().configSet("masterauth", LOSS_MASTERAUTH);
        replica.redis().clientKill(KillArgs.Builder.typeMaster());
        client(replica, "UNPAUSE");
      }
      long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
      requestFailover(deadline);
      // The master has no password, so no replica can link to it again: the writes stay lost.
      await(
          FAILOVER_TIMEOUT,
          () -> {
            for (RedisServer replica : paused) {
              List<Object> role = replica.redis().role();
              if (!role.isEmpty() && "master".equals(String.valueOf(role.get(0)))) {
                return replica;
              }
            }
            return null;
          },
          () -> "a replica to be promoted");
      // The other replica may link again (to the new master, once the sentinels say so).
      restore(paused);
      return awaitNewMaster(old, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    } finally {
      restore(paused);
    }
  }

  private static void restore(List<RedisServer> paused) {
    for (RedisServer replica : paused) {
      try {
        replica.redis().configSet("masterauth", "");
        client(replica, "UNPAUSE");
      } catch (RedisException e) {
        // a node that went away: nothing left to restore
      }
    }
  }

  private void requestFailover(long deadline) {
    while (true) {
      try {
        sentinels.get(0).commands().failover(masterName);
        return;
      } catch (RedisCommandExecutionException e) {
        String message = String.valueOf(e.getMessage());
        boolean retry = message.startsWith("INPROG") || message.startsWith("NOGOODSLAVE");
        if (!retry || System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("SENTINEL FAILOVER " + masterName + " failed", e);
        }
        pollPause();
      }
    }
  }

  private static void client(RedisServer server, String... args) {
    CommandArgs<String, String> command = new CommandArgs<>(StringCodec.UTF8);
    for (String arg : args) {
      command.add(arg);
    }
    server.redis().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), command);
  }

  /**
   * Kills the current master with SIGKILL ({@link RedisServer#kill()}) and returns it at once; the
   * sentinels then elect a replica. Wait with {@link #awaitNewMaster(RedisServer, Duration)}.
   */
  public synchronized RedisServer killMaster() {
    requireOpen();
    RedisServer old = master();
    old.kill();
    return old;
  }

  /**
   * Waits until every sentinel names the data node on {@code port} as master and that node answers
   * {@code ROLE} as master; up to 30 s.
   *
   * @return that data node
   * @throws IllegalArgumentException if no data node of this set has that port
   * @throws IllegalStateException if the set is closed, or the wait times out
   */
  public RedisServer awaitMaster(int port) {
    return awaitMaster(port, FAILOVER_TIMEOUT);
  }

  /**
   * Waits like {@link #awaitMaster(int)}, up to {@code timeout}.
   *
   * @throws IllegalArgumentException if no data node of this set has that port
   * @throws IllegalStateException if the set is closed, or the wait times out
   */
  public RedisServer awaitMaster(int port, Duration timeout) {
    RedisServer expected = serverOrThrow(port);
    return await(
        timeout,
        () -> isAgreedMaster(expected) ? expected : null,
        () -> "the sentinels to name " + expected + " as master");
  }

  /**
   * Waits until every sentinel names one data node other than {@code previous} as master and that
   * node answers {@code ROLE} as master, e.g. after {@link #killMaster()}.
   *
   * @return the new master
   * @throws IllegalStateException if the set is closed, or the wait times out
   */
  public RedisServer awaitNewMaster(RedisServer previous, Duration timeout) {
    Objects.requireNonNull(previous, "previous must not be null");
    return await(
        timeout,
        () -> {
          for (RedisServer candidate : servers) {
            if (candidate != previous && isAgreedMaster(candidate)) {
              return candidate;
            }
          }
          return null;
        },
        () -> "the sentinels to name a master other than " + previous);
  }

  /**
   * Kills the sentinels, stops the data nodes and deletes the set's directory. Idempotent.
   *
   * @throws UncheckedIOException if the directory cannot be deleted (the processes are stopped
   *     regardless)
   */
  @Override
  // FutureReturnValueIgnored: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    // Sentinels first, so that none fails over while the data nodes stop.
    for (Sentinel sentinel : sentinels) {
      sentinel.stop();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
    proxies.values().forEach(FaultProxy::close);
    for (RedisServer server : servers) {
      try {
        server.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    try {
      Reaper.deleteRecursively(directory);
      Reaper.untrackDirectory(directory);
    } catch (IOException e) {
      UncheckedIOException deletion =
          new UncheckedIOException("cannot delete the sentinels' directory " + directory, e);
      if (failure == null) {
        failure = deletion;
      } else {
        failure.addSuppressed(deletion);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Returns a description naming the master name and every port, for test failure messages. */
  @Override
  public String toString() {
    return "RedisSentinels["
        + masterName
        + ", servers "
        + servers.stream().map(s -> Integer.toString(s.port())).collect(Collectors.joining(","))
        + ", sentinels "
        + sentinelPorts().stream().map(String::valueOf).collect(Collectors.joining(","))
        + (closed ? ", closed" : "")
        + "]";
  }

  private void startNodes() {
    if (tls != null) {
      startTlsNodes();
      return;
    }
    RedisServer master = RedisServer.start("--repl-diskless-sync-delay", "0");
    servers.add(master);
    if (proxied) {
      behindProxy(master);
    }
    for (int i = 0; i < REPLICAS; i++) {
      if (proxied) { // linked through the master's proxy, once its own is announced
        RedisServer replica = RedisServer.start("--repl-diskless-sync-delay", "0");
        servers.add(replica);
        behindProxy(replica);
        String masterPort = Integer.toString(announcedPort(master));
        replica.redis().replicaof(HOST, announcedPort(master));
        replica.alsoOnRestart("--replicaof", HOST, masterPort);
        continue;
      }
      servers.add(
          RedisServer.start(
              "--repl-diskless-sync-delay",
              "0",
              "--replicaof",
              HOST,
              Integer.toString(master.port())));
    }
    for (int i = 0; i < SENTINELS; i++) {
      Path sentinelDirectory = directory.resolve("sentinel-" + i);
      try {
        Files.createDirectories(sentinelDirectory);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + sentinelDirectory, e);
      }
      sentinels.add(
          Sentinel.start(
              sentinelDirectory, masterName, announcedPort(master), proxied, null, client));
    }
  }

  private void startTlsNodes() {
    RedisServer master = startTlsNode();
    servers.add(master);
    for (int i = 0; i < REPLICAS; i++) {
      servers.add(startTlsNode("--replicaof", HOST, Integer.toString(master.tlsPort())));
    }
    for (int i = 0; i < SENTINELS; i++) {
      Path sentinelDirectory = directory.resolve("sentinel-" + i);
      try {
        Files.createDirectories(sentinelDirectory);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + sentinelDirectory, e);
      }
      sentinels.add(
          Sentinel.start(sentinelDirectory, masterName, master.tlsPort(), false, tls, client));
    }
  }

  private RedisServer startTlsNode(String... more) {
    List<String> args = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
    args.addAll(List.of("--tls-replication", "yes"));
    args.addAll(List.of(more));
    return RedisServer.startWithTls(
        tls.certificate(),
        tls.privateKey(),
        tls.caCertificates(),
        tls.requireClientCertificates(),
        args.toArray(String[]::new));
  }

  /** Puts a proxy in front of {@code node}, which announces it from now on (and after restarts). */
  private void behindProxy(RedisServer node) {
    FaultProxy proxy = FaultProxy.start(node);
    proxies.put(node, proxy);
    node.keepOnRestart(
        "replica-announce-ip", HOST, "replica-announce-port", Integer.toString(proxy.port()));
  }

  private void awaitHealthy() {
    await(
        READY_TIMEOUT,
        () -> {
          for (Sentinel sentinel : sentinels) {
            Map<String, String> state = sentinel.commands().master(masterName);
            if (!String.valueOf(REPLICAS).equals(state.get("num-slaves"))
                || !String.valueOf(SENTINELS - 1).equals(state.get("num-other-sentinels"))) {
              return null;
            }
          }
          for (RedisServer replica : servers.subList(1, servers.size())) {
            if (!replica.redis().info("replication").contains("master_link_status:up")) {
              return null;
            }
          }
          return Boolean.TRUE;
        },
        () -> "every sentinel to see 2 replicas and 2 other sentinels; " + sentinels.get(0).tail());
  }

  private boolean isAgreedMaster(RedisServer node) {
    int port = announcedPort(node);
    for (Sentinel sentinel : sentinels) {
      if (sentinel.masterPort(masterName) != port) {
        return false;
      }
    }
    List<Object> role = node.redis().role();
    return !role.isEmpty() && "master".equals(String.valueOf(role.get(0)));
  }

  private RedisServer server(int port) {
    for (RedisServer server : servers) {
      if (server.port() == port || announcedPort(server) == port) {
        return server;
      }
    }
    throw new IllegalStateException("the sentinels name a master on unknown port " + port);
  }

  private RedisServer serverOrThrow(int port) {
    for (RedisServer server : servers) {
      if (server.port() == port || announcedPort(server) == port) {
        return server;
      }
    }
    throw new IllegalArgumentException("no data node of " + this + " has port " + port);
  }

  private <T> T await(Duration timeout, Supplier<T> probe, Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RedisException last = null;
    while (true) {
      requireOpen();
      try {
        T result = probe.get();
        if (result != null) {
          return result;
        }
      } catch (RedisException e) {
        last = e; // a node not answering yet, or a sentinel mid-failover
      }
      if (System.nanoTime() - deadline > 0) {
        IllegalStateException timedOut =
            new IllegalStateException("timed out after " + timeout + " waiting for " + what.get());
        if (last != null) {
          timedOut.addSuppressed(last);
        }
        throw timedOut;
      }
      pollPause();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private static void pollPause() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the sentinels", e);
    }
  }

  /** One {@code redis-sentinel} process and the Lettuce connection the set asks it through. */
  private static final class Sentinel {
    final int port;
    final int tlsPort; // -1 unless with TLS
    final FaultProxy proxy; // null unless behind proxies
    private final RedisProcess process;
    private final StatefulRedisSentinelConnection<String, String> connection;

    private Sentinel(
        int port,
        int tlsPort,
        FaultProxy proxy,
        RedisProcess process,
        StatefulRedisSentinelConnection<String, String> connection) {
      this.port = port;
      this.tlsPort = tlsPort;
      this.proxy = proxy;
      this.process = process;
      this.connection = connection;
    }

    static Sentinel start(
        Path directory,
        String masterName,
        int masterPort,
        boolean proxied,
        Tls tls,
        RedisClient client) {
      Path log = directory.resolve("sentinel.log");
      Path conf = directory.resolve("sentinel.conf");
      // The free port is only free until someone else binds it: retry on a lost race.
      for (int attempt = 1; ; attempt++) {
        int port = RedisServer.freePort();
        // Started first, so that the sentinel can announce it; it waits for the sentinel to listen.
        FaultProxy proxy = proxied ? FaultProxy.start(HOST, port) : null;
        int tlsPort = tls != null ? RedisServer.freePort() : -1;
        List<String> more = new ArrayList<>();
        if (proxy != null) {
          more.addAll(
              List.of("sentinel announce-ip " + HOST, "sentinel announce-port " + proxy.port()));
        }
        if (tls != null) { // the others reach it over TLS, so it announces its TLS port
          more.addAll(tls.settings(tlsPort));
          more.addAll(List.of("sentinel announce-ip " + HOST, "sentinel announce-port " + tlsPort));
        }
        writeConf(conf, directory, port, masterName, masterPort, more);
        RedisProcess process = launch(directory, conf, log, port);
        if (process == null) {
          if (proxy != null) {
            proxy.close();
          }
        } else {
          StatefulRedisSentinelConnection<String, String> connection;
          try {
            connection =
                client.connectSentinel(
                    RedisURI.builder()
                        .withHost(HOST)
                        .withPort(port)
                        .withTimeout(COMMAND_TIMEOUT)
                        .build());
          } catch (RuntimeException e) {
            process.kill();
            if (proxy != null) {
              proxy.close();
            }
            throw e;
          }
          return new Sentinel(port, tlsPort, proxy, process, connection);
        }
        if (attempt == START_ATTEMPTS) {
          throw new IllegalStateException(
              EXECUTABLE
                  + " found no free port in "
                  + START_ATTEMPTS
                  + " attempts; "
                  + LogTail.of(log));
        }
      }
    }

    RedisSentinelCommands<String, String> commands() {
      return connection.sync();
    }

    int masterPort(String masterName) {
      SocketAddress address = commands().getMasterAddrByName(masterName);
      if (address instanceof InetSocketAddress inet) {
        return inet.getPort();
      }
      throw new IllegalStateException(
          "sentinel on port " + port + " knows no master named " + masterName);
    }

    String tail() {
      return process.tail();
    }

    void stop() {
      connection.close();
      process.kill();
      if (proxy != null) {
        proxy.close();
      }
    }

    private static void writeConf(
        Path conf, Path directory, int port, String masterName, int masterPort, List<String> more) {
      List<String> lines =
          new ArrayList<>(
              List.of(
                  "port " + port,
                  "bind " + HOST,
                  "daemonize no",
                  "dir " + directory,
                  "sentinel monitor " + masterName + " " + HOST + " " + masterPort + " 2",
                  "sentinel down-after-milliseconds " + masterName + " 1000",
                  "sentinel failover-timeout " + masterName + " 3000",
                  "sentinel parallel-syncs " + masterName + " 2"));
      lines.addAll(more);
      lines.add("");
      String text = String.join("\n", lines);
      try {
        Files.writeString(conf, text, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + conf, e);
      }
    }

    private static RedisProcess launch(Path directory, Path conf, Path log, int port) {
      // the server binary in sentinel mode: the same product and version as the data nodes
      ServerBinary binary = ServerBinary.current();
      return RedisProcess.start(
          EXECUTABLE,
          binary.sentinelCommand(conf),
          directory,
          log,
          port,
          binary.installHint(),
          SENTINEL_READINESS);
    }
  }
}
