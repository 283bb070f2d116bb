package dev.warden.cli;

import dev.warden.testkit.FaultProxy;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisDeployment;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenDeployment;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * A throwaway Redis deployment of {@code warden chaos} and the faults it can suffer: one
 * redis-server (each worker behind its own {@link FaultProxy}), a Sentinel set (a master, 2
 * replicas, 3 sentinels) or a 3+3 Redis Cluster, on free ports of 127.0.0.1.
 *
 * <p><b>What goes through the proxies.</b> On one server, each worker has its own proxy, so a
 * partition cuts one worker off from Redis. On Sentinel and Cluster every process is behind proxies
 * that the nodes announce ({@link RedisSentinels#startBehindProxies()}, {@link
 * RedisCluster#startBehindProxies()}): clients, sentinels, replicas and the cluster bus all reach a
 * node through its proxies, so a partition cuts a <em>node</em> off from everybody (a Sentinel
 * master: until the sentinels fail it over; a cluster master: from its clients and replicas only,
 * with no failover, or from everything until its replica takes over). A node announces one address
 * for all, so these proxies cannot single out one worker there; the worker stop (SIGSTOP, {@link
 * ChaosFaults}) cuts one worker off on every kind.
 *
 * <p>Faults run on the caller's thread, one at a time, and return once the deployment serves again
 * (a freeze or a partition returns when it ends). Not thread-safe: the fault injector's thread is
 * the only caller until {@link #close}.
 */
abstract class ChaosDeployment implements AutoCloseable {
  /** Long enough to outlast a worker's lease (the watchdog timeout, 3 s). */
  static final Duration PAST_THE_LEASE = Duration.ofSeconds(4);

  private static final Duration SAVE_LIMIT = Duration.ofSeconds(30);

  /**
   * What a fault did to Redis's data, as the fault log says it: {@code false} kept, {@code true}
   * some writes lost or rewound (a restart from an older snapshot, a failover that loses writes, a
   * node restarted empty among others), {@code empty} every key gone (the only server restarted
   * empty).
   */
  enum Data {
    KEPT("false"),
    REWOUND("true"),
    EMPTIED("empty");

    private final String logged;

    Data(String logged) {
      this.logged = logged;
    }

    /** Its word in the fault log. */
    String logged() {
      return logged;
    }

    /** Reads its word in the fault log. */
    static Data parse(String logged) {
      for (Data data : values()) {
        if (data.logged.equals(logged)) {
          return data;
        }
      }
      throw new IllegalArgumentException("not a fault's data outcome: " + logged);
    }
  }

  /**
   * What a fault did, for the fault log.
   *
   * @param kind its kind, e.g. {@code partition}
   * @param data what it did to Redis's data
   * @param worker the one worker it hit (from 1), or 0 when it hit the deployment
   * @param detail what exactly it did, for people
   */
  record Outcome(String kind, Data data, int worker, String detail) {
    /** A fault of the deployment, not of one worker. */
    Outcome(String kind, Data data, String detail) {
      this(kind, data, 0, detail);
    }
  }

  /** The deployment kinds, as {@code --deployment} names them. */
  enum Kind {
    SINGLE,
    SENTINEL,
    CLUSTER;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The testkit's kind it starts. */
    WardenDeployment.Kind deployment() {
      return switch (this) {
        case SINGLE -> WardenDeployment.Kind.SINGLE;
        case SENTINEL -> WardenDeployment.Kind.SENTINEL;
        case CLUSTER -> WardenDeployment.Kind.CLUSTER;
      };
    }
  }

  /** The processes, started by the testkit; the subclass adds the faults its kind can suffer. */
  final RedisDeployment deployment;

  ChaosDeployment(RedisDeployment deployment) {
    this.deployment = deployment;
  }

  /** Starts a deployment of {@code kind} for {@code workers} workers. */
  static ChaosDeployment start(Kind kind, int workers) {
    RedisDeployment deployment = RedisDeployment.startBehindProxies(kind.deployment());
    return switch (kind) {
      case SINGLE -> new Single(deployment, workers);
      case SENTINEL -> new Sentinels(deployment);
      case CLUSTER -> new Cluster(deployment);
    };
  }

  /** Describes it for the output. */
  abstract String describe();

  /** Where worker {@code number} (from 1) connects: through its proxy, where there is one. */
  Target workerTarget(int number) {
    return directTarget();
  }

  /** Where the driver connects for its own checks: directly. */
  final Target directTarget() {
    return Target.of(deployment);
  }

  /** Injects one fault chosen by {@code random} among those this kind supports. */
  abstract Outcome injectOne(Random random) throws InterruptedException;

  /** Takes a snapshot (RDB) of the data servers, for a later restart from an older snapshot. */
  abstract void snapshot() throws InterruptedException;

  /** The data servers that hold keys now (masters). */
  abstract List<RedisServer> dataServers();

  /**
   * Waits until what the last fault took away or brought back has settled, so that no write from
   * now on can be lost without a new fault: no stale master takes writes (a failed-over master not
   * yet demoted), no failover is under way. Returns whether it settled within its limit.
   */
  abstract boolean settle() throws InterruptedException;

  /**
   * Waits until the deployment is back in the shape its faults start from (on Sentinel: every data
   * node but the master is a replica again), up to a limit; returns whether it is.
   */
  boolean awaitReady() throws InterruptedException {
    return true;
  }

  /** Ends partitions and freezes. */
  abstract void heal();

  @Override
  public abstract void close();

  /** Kills the pub/sub connections of every client on every data server. */
  final Outcome killPubSub() {
    for (RedisServer server : dataServers()) {
      server.redis().clientKill(KillArgs.Builder.typePubsub());
    }
    return new Outcome(
        "pubsub-kill", Data.KEPT, "CLIENT KILL TYPE pubsub on " + dataServers().size());
  }

  /**
   * Saves an RDB file now; while the server has a child process (a replica's full sync forks one,
   * e.g. after a node rejoined as a replica), waits for it to end, up to 30 s.
   */
  static void save(RedisServer server) throws InterruptedException {
    long deadline = System.nanoTime() + SAVE_LIMIT.toNanos();
    while (true) {
      try {
        server.redis().save();
        return;
      } catch (RedisCommandExecutionException e) {
        if (!String.valueOf(e.getMessage()).contains("in progress")
            || System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
      Thread.sleep(100); // the child has no event to wait on; it ends within seconds
    }
  }

  /** Deletes the server's RDB file, so that its next restart starts empty. */
  static void forgetSnapshot(RedisServer server) {
    try {
      Files.deleteIfExists(dump(server));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the snapshot of " + server, e);
    }
  }

  static boolean hasSnapshot(RedisServer server) {
    return Files.exists(dump(server));
  }

  private static Path dump(RedisServer server) {
    return Path.of(server.redis().configGet("dir").get("dir"), "dump.rdb");
  }

  private static final class Single extends ChaosDeployment {
    private final RedisServer server;
    private final List<FaultProxy> proxies = new ArrayList<>();

    Single(RedisDeployment deployment, int workers) {
      super(deployment);
      this.server = deployment.server();
      try {
        for (int i = 0; i < workers; i++) {
          proxies.add(FaultProxy.start(server));
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    @Override
    String describe() {
      return "throwaway redis-server, each worker behind its own fault proxy";
    }

    @Override
    Target workerTarget(int number) {
      return new Target(proxies.get(number - 1).uri(), false);
    }

    @Override
    List<RedisServer> dataServers() {
      return List.of(server);
    }

    @Override
    void snapshot() throws InterruptedException {
      save(server);
    }

    @Override
    boolean settle() {
      return true; // one server: once it answers again, it is the only master there is
    }

    @Override
    Outcome injectOne(Random random) throws InterruptedException {
      switch (random.nextInt(6)) {
        case 0 -> {
          forgetSnapshot(server);
          server.restart();
          return new Outcome("restart", Data.EMPTIED, "killed and restarted empty");
        }
        case 1 -> {
          if (!hasSnapshot(server)) {
            save(server);
          }
          server.restart();
          return new Outcome("restart-snapshot", Data.REWOUND, "restarted from an older RDB");
        }
        case 2 -> {
          server.pause(PAST_THE_LEASE);
          Thread.sleep(PAST_THE_LEASE.toMillis()); // the fault lasts this long
          server.resume();
          return new Outcome("freeze", Data.KEPT, "SIGSTOP " + PAST_THE_LEASE.toMillis() + " ms");
        }
        case 3 -> {
          return killPubSub();
        }
        case 4 -> {
          int worker = random.nextInt(proxies.size());
          FaultProxy proxy = proxies.get(worker);
          proxy.blackhole();
          try {
            Thread.sleep(PAST_THE_LEASE.toMillis()); // the partition lasts this long
          } finally {
            proxy.heal();
          }
          return new Outcome("partition", Data.KEPT, worker + 1, "its fault proxy blackholed");
        }
        default -> {
          int worker = random.nextInt(proxies.size());
          proxies.get(worker).cut();
          return new Outcome("cut", Data.KEPT, worker + 1, "its connections reset");
        }
      }
    }

    @Override
    void heal() {
      proxies.forEach(FaultProxy::heal);
      server.resume();
    }

    @Override
    public void close() {
      proxies.forEach(FaultProxy::close);
      deployment.close();
    }
  }

  private static final class Sentinels extends ChaosDeployment {
    /** How long the set may take to settle: Sentinel demotes a failed-over master about 10 s on. */
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(60);

    private final RedisSentinels sentinels;
    private final RedisClient admin = RedisClient.create();
    private final List<StatefulRedisSentinelConnection<String, String>> sentinelLinks =
        new ArrayList<>();

    Sentinels(RedisDeployment deployment) {
      super(deployment);
      this.sentinels = deployment.sentinels();
    }

    @Override
    String describe() {
      return "throwaway Sentinel set (a master, 2 replicas, 3 sentinels), each behind a fault proxy";
    }

    @Override
    List<RedisServer> dataServers() {
      return List.of(sentinels.master());
    }

    @Override
    void snapshot() {
      // A restarted node comes back as a replica and takes its master's data: no snapshot fault.
    }

    @Override
    Outcome injectOne(Random random) throws InterruptedException {
      switch (random.nextInt(6)) {
        case 0 -> {
          RedisServer promoted = sentinels.failover();
          return new Outcome(
              "failover", Data.REWOUND, "SENTINEL FAILOVER to port " + promoted.port());
        }
        case 1 -> {
          sentinels.loseNextWrites();
          Thread.sleep(1000); // writes made in this second reach no replica
          RedisServer promoted = sentinels.failover();
          return new Outcome(
              "failover-lose-writes",
              Data.REWOUND,
              "the writes of 1 s lost, now port " + promoted.port());
        }
        case 2 -> {
          RedisServer old = sentinels.killMaster();
          RedisServer promoted = sentinels.awaitNewMaster(old, Duration.ofSeconds(60));
          old.restart();
          return new Outcome(
              "kill-master",
              Data.REWOUND,
              "killed port " + old.port() + ", now port " + promoted.port());
        }
        case 3 -> {
          return freeze();
        }
        case 4 -> {
          return partitionMaster();
        }
        default -> {
          return killPubSub();
        }
      }
    }

    /**
     * Freezes the master past the lease. The sentinels see it down after 1 s and may fail it over
     * meanwhile, which loses the writes the replicas had not received, and leaves it a stale master
     * once resumed: so the freeze ends once the set has settled, and says whether they did.
     */
    private Outcome freeze() throws InterruptedException {
      RedisServer master = sentinels.master();
      String epoch = configEpoch();
      master.pause(PAST_THE_LEASE);
      Thread.sleep(PAST_THE_LEASE.toMillis()); // the fault lasts this long
      master.resume();
      boolean settled = settle();
      String detail = "master SIGSTOP " + PAST_THE_LEASE.toMillis() + " ms";
      if (!settled || !configEpoch().equals(epoch)) {
        return new Outcome(
            "freeze",
            Data.REWOUND,
            detail
                + (settled
                    ? ", failed over meanwhile to port " + sentinels.master().port()
                    : ", the set not settled"));
      }
      return new Outcome("freeze", Data.KEPT, detail);
    }

    /**
     * Settled: every sentinel names one master and sees it up with no failover under way, that
     * master answers {@code ROLE} as master, and every other data node is a replica or has no
     * Warden client left. A failed-over master stays a writable master until a sentinel converts
     * it, some 10 s on; but Warden follows the sentinels: it moves each instance to the master they
     * name and closes the old link once the commands pending on it are done, and opens links only
     * to what they name. So once no Warden link is left on it, no write of Warden's reaches it and
     * none can be lost with it.
     */
    @Override
    boolean settle() throws InterruptedException {
      return await(/* converted= */ false);
    }

    /**
     * Ready: settled, and a failed-over master converted into a replica, which the faults assume (a
     * failover must promote one of the replicas, not a stale master).
     */
    @Override
    boolean awaitReady() throws InterruptedException {
      return await(/* converted= */ true);
    }

    private boolean await(boolean converted) throws InterruptedException {
      long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
      while (!settled(converted)) {
        if (System.nanoTime() - deadline > 0) {
          return false;
        }
        Thread.sleep(100); // the sentinels publish no event for "settled"; look again shortly
      }
      return true;
    }

    private boolean settled(boolean converted) {
      try {
        Set<String> masters = new HashSet<>();
        for (Map<String, String> view : sentinelViews()) {
          if (!"master".equals(view.get("flags"))) { // e.g. master,s_down,failover_in_progress
            return false;
          }
          masters.add(view.get("port"));
        }
        if (masters.size() != 1) {
          return false;
        }
        RedisServer master = sentinels.master();
        if (!hasRole(master, "master")) {
          return false;
        }
        for (RedisServer server : sentinels.servers()) {
          if (server != master
              && !hasRole(server, "slave")
              && (converted || hasWardenClients(server))) {
            return false;
          }
        }
        return true;
      } catch (RuntimeException inTransition) { // a node restarting, sentinels disagreeing
        return false;
      }
    }

    private static boolean hasRole(RedisServer server, String role) {
      List<Object> reply = server.redis().role();
      return !reply.isEmpty() && role.equals(String.valueOf(reply.get(0)));
    }

    /** Whether a connection of a Warden instance (named {@code warden-<id>...}) is open on it. */
    private static boolean hasWardenClients(RedisServer server) {
      return server.redis().clientList().lines().anyMatch(line -> line.contains(" name=warden-"));
    }

    /** The sentinels' config epoch of the master: it rises with every failover. */
    private String configEpoch() {
      Set<String> epochs = new TreeSet<>();
      sentinelViews().forEach(view -> epochs.add(view.get("config-epoch")));
      return String.join(",", epochs);
    }

    /** What each sentinel says of the master ({@code SENTINEL MASTER}), asked directly. */
    private List<Map<String, String>> sentinelViews() {
      if (sentinelLinks.isEmpty()) {
        for (int port : sentinels.sentinelPorts()) {
          RedisURI uri = RedisURI.create("127.0.0.1", port);
          uri.setTimeout(Duration.ofSeconds(5));
          sentinelLinks.add(admin.connectSentinel(uri));
        }
      }
      List<Map<String, String>> views = new ArrayList<>();
      for (StatefulRedisSentinelConnection<String, String> link : sentinelLinks) {
        views.add(link.sync().master(sentinels.masterName()));
      }
      return views;
    }

    /**
     * Cuts the master off from everybody (clients, sentinels, replicas) past the lease and until
     * the sentinels have failed it over; once healed it is a stale master until they demote it, and
     * what its clients sent meanwhile reaches it then.
     */
    private Outcome partitionMaster() throws InterruptedException {
      RedisServer old = sentinels.master();
      FaultProxy proxy = sentinels.proxyOf(old);
      proxy.blackhole();
      RedisServer promoted;
      try {
        Thread.sleep(PAST_THE_LEASE.toMillis()); // the partition lasts at least this long
        promoted = sentinels.awaitNewMaster(old, Duration.ofSeconds(60));
      } finally {
        proxy.heal();
      }
      return new Outcome(
          "partition-master",
          Data.REWOUND,
          "port "
              + old.port()
              + " cut off from clients, sentinels and replicas until failed over to port "
              + promoted.port());
    }

    @Override
    void heal() {
      sentinels.servers().forEach(server -> sentinels.proxyOf(server).heal());
      sentinels.sentinelProxies().forEach(FaultProxy::heal);
      sentinels.servers().forEach(RedisServer::resume);
    }

    @Override
    public void close() {
      try {
        sentinelLinks.forEach(StatefulRedisSentinelConnection::close);
        admin.shutdown();
      } finally {
        deployment.close();
      }
    }
  }

  private static final class Cluster extends ChaosDeployment {
    private final RedisCluster cluster;

    Cluster(RedisDeployment deployment) {
      super(deployment);
      this.cluster = deployment.cluster();
    }

    @Override
    String describe() {
      return "throwaway 3+3 Redis Cluster, each node behind fault proxies";
    }

    @Override
    List<RedisServer> dataServers() {
      return cluster.masters();
    }

    @Override
    void snapshot() throws InterruptedException {
      for (RedisServer master : cluster.masters()) {
        save(master);
      }
    }

    /**
     * Settled: the cluster is healthy ({@link RedisCluster#awaitHealthy}): every live node agrees
     * on who owns which slot, so a replaced master knows it is a replica and refuses writes.
     */
    @Override
    boolean settle() {
      try {
        cluster.awaitHealthy();
        return true;
      } catch (IllegalStateException notInTime) {
        return false;
      }
    }

    @Override
    Outcome injectOne(Random random) throws InterruptedException {
      List<RedisServer> masters = cluster.masters();
      RedisServer master = masters.get(random.nextInt(masters.size()));
      switch (random.nextInt(8)) {
        case 0 -> {
          cluster.failover(cluster.replicaOf(master), RedisCluster.Mode.GRACEFUL);
          return new Outcome("failover", Data.KEPT, "CLUSTER FAILOVER of port " + master.port());
        }
        case 1 -> {
          cluster.failover(cluster.replicaOf(master), RedisCluster.Mode.FORCE);
          return new Outcome(
              "failover-force", Data.REWOUND, "CLUSTER FAILOVER FORCE of " + master.port());
        }
        case 2 -> {
          forgetSnapshot(master);
          cluster.kill(master);
          cluster.restart(master);
          return new Outcome(
              "restart", Data.REWOUND, "master port " + master.port() + " restarted");
        }
        case 3 -> {
          if (!hasSnapshot(master)) {
            save(master);
          }
          cluster.kill(master);
          cluster.restart(master);
          return new Outcome(
              "restart-snapshot",
              Data.REWOUND,
              "master port " + master.port() + " from an older RDB");
        }
        case 4 -> {
          cluster.freeze(master, PAST_THE_LEASE);
          Thread.sleep(PAST_THE_LEASE.toMillis()); // the fault lasts this long
          master.resume();
          cluster.awaitHealthy();
          return new Outcome(
              "freeze",
              Data.REWOUND,
              "master port " + master.port() + " SIGSTOP past the node timeout");
        }
        case 5 -> {
          FaultProxy proxy = cluster.proxyOf(master);
          proxy.blackhole();
          try {
            Thread.sleep(PAST_THE_LEASE.toMillis()); // the partition lasts this long
          } finally {
            proxy.heal();
          }
          cluster.awaitHealthy();
          return new Outcome(
              "partition-master",
              Data.KEPT,
              "master port "
                  + master.port()
                  + " cut off from its clients and replicas for "
                  + PAST_THE_LEASE.toMillis()
                  + " ms (the cluster bus still up)");
        }
        case 6 -> {
          return isolate(master);
        }
        default -> {
          return killPubSub();
        }
      }
    }

    /**
     * Cuts a master off from everything (clients, replicas, the cluster bus both ways) past the
     * lease and until its replica has taken over its slots; once healed it learns it was replaced,
     * and what its clients sent meanwhile reaches it then.
     */
    private Outcome isolate(RedisServer master) throws InterruptedException {
      RedisServer replica = cluster.replicaOf(master);
      String key = keyOn(master);
      cluster.isolate(master);
      try {
        Thread.sleep(PAST_THE_LEASE.toMillis()); // the isolation lasts at least this long
        cluster.awaitOwner(SlotHash.getSlot(key), replica);
      } finally {
        cluster.heal(master);
      }
      cluster.awaitHealthy();
      return new Outcome(
          "isolate-master",
          Data.REWOUND,
          "master port "
              + master.port()
              + " cut off from everything until port "
              + replica.port()
              + " took over");
    }

    /** A key whose slot {@code master} owns. */
    private String keyOn(RedisServer master) {
      for (int i = 0; ; i++) {
        if (cluster.masterOf("chaos-" + i) == master) {
          return "chaos-" + i;
        }
      }
    }

    @Override
    void heal() {
      cluster.nodes().forEach(cluster::heal);
      cluster.nodes().forEach(RedisServer::resume);
    }

    @Override
    public void close() {
      deployment.close();
    }
  }
}
