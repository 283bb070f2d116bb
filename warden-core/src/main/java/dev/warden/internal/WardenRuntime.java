package dev.warden.internal;

import dev.warden.DeploymentReport;
import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.Leadership;
import dev.warden.LeasedSemaphore;
import dev.warden.LockInfo;
import dev.warden.WakeUps;
import dev.warden.WardenActivity;
import dev.warden.WardenException;
import dev.warden.WardenListener;
import dev.warden.WardenStats;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.SystemTimer;
import dev.warden.internal.leader.LockLeadership;
import dev.warden.internal.lease.LeaseKeeper;
import dev.warden.internal.lock.Locks;
import dev.warden.internal.quorum.QuorumLock;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Capabilities;
import dev.warden.internal.redis.ClientSetup;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.redis.SingleServer;
import dev.warden.internal.redis.cluster.ClusterDeployment;
import dev.warden.internal.redis.sentinel.SentinelDeployment;
import dev.warden.internal.sync.Synchronizers;
import dev.warden.internal.wait.Subscriptions;
import dev.warden.internal.wait.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of one {@code Warden}: makes the deployment's connections, the timer, the
 * wake-ups, the lease keeper and the factories of the primitives, hands each its collaborators, and
 * closes them in order. It holds no state of its own beyond them. Public only so that {@code
 * dev.warden.Warden} can reach it; the package is not exported.
 */
public final class WardenRuntime {
  private static final Logger log = LoggerFactory.getLogger(WardenRuntime.class);

  private final Deployment deployment;
  private final long commandTimeoutNanos;
  private final SystemTimer timer;
  private final Subscriptions subscriptions;
  private final Waiting waiting;
  private final LeaseKeeper keeper;
  private final Locks locks;
  private final Synchronizers synchronizers;
  private final Events events = new Events();
  private final Executor callbacks = ForkJoinPool.commonPool();
  private final Set<LockLeadership> leaderships = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private boolean closing; // guarded by this: a graceful close has begun

  private WardenRuntime(
      ClientSetup setup,
      Owners owners,
      Deployment deployment,
      SystemTimer timer,
      Namespace namespace,
      WakeUps wakeUps) {
    Settings settings = setup.settings();
    Clock clock = setup.clock();
    this.deployment = deployment;
    this.timer = timer;
    this.commandTimeoutNanos = settings.commandTimeoutNanos();
    Scripts scripts = new Scripts(deployment, wakeUps == WakeUps.FROM_CLIENT);
    Calls calls = new Calls(settings, clock, timer, () -> closed);
    this.subscriptions =
        new Subscriptions(deployment.pubSub(), owners.clientId(), timer, clock, settings);
    this.waiting = new Waiting(settings, clock, timer, subscriptions, events);
    this.keeper = new LeaseKeeper(scripts, timer, clock, callbacks, settings);
    this.locks =
        new Locks(settings, clock, owners, scripts, calls, waiting, keeper, callbacks, namespace);
    this.synchronizers = new Synchronizers(settings, scripts, calls, waiting, namespace);
    // after a reconnect Redis may have lost data (restart, failover): check every hold
    deployment.onReconnect(keeper::renewNow);
  }

  /**
   * Starts the timer, connects as the options say (one server or Sentinel by the URI, or a cluster
   * by its seeds) and returns the runtime, with the options' listeners registered before anything
   * happens; the one place that chooses the system's clock and timer (tests of the parts hand them
   * virtual ones).
   *
   * @throws IllegalStateException if neither a URI nor cluster seeds were set, or both were
   * @throws IllegalArgumentException if a URI is malformed, or the replication timeout is not below
   *     the command timeout
   * @throws dev.warden.WardenException if Redis cannot be reached, or refuses something Warden
   *     needs there (the capability check, {@link Capabilities}, names it)
   */
  public static WardenRuntime start(WardenOptions options) {
    return start(options, /* checkOnly= */ false).runtime;
  }

  /**
   * Connects as {@link #start} does, runs the capability check ({@link Capabilities}), closes
   * everything and returns the report; refusals are in the report.
   *
   * @throws dev.warden.WardenException if Redis cannot be reached or does not answer
   */
  public static DeploymentReport check(WardenOptions options) {
    return start(options, /* checkOnly= */ true).report;
  }

  /** A started runtime, or the report of a check. */
  private record Started(WardenRuntime runtime, DeploymentReport report) {}

  private static Started start(WardenOptions options, boolean checkOnly) {
    String uri = options.uri();
    List<String> seeds = options.clusterSeeds();
    if (uri != null && !seeds.isEmpty()) {
      throw new IllegalStateException("set either uri(...) or cluster(...), not both");
    }
    if (uri == null && seeds.isEmpty()) {
      throw new IllegalStateException("uri or cluster seeds must be set before build()");
    }
    Function<ClientSetup, Deployment> connect;
    if (!seeds.isEmpty()) {
      connect = setup -> ClusterDeployment.connect(seeds, setup);
    } else if (SentinelDeployment.isSentinelUri(uri)) {
      connect = setup -> SentinelDeployment.connect(uri, setup);
    } else {
      connect = setup -> SingleServer.connect(uri, setup);
    }
    Settings settings = options.settings();
    Owners owners = new Owners();
    SystemTimer timer = new SystemTimer();
    ClientSetup setup =
        new ClientSetup(
            settings,
            Clock.SYSTEM,
            timer,
            "warden-" + owners.clientId(),
            options.tls(),
            options.credentials(),
            options.clientResources());
    WardenRuntime runtime;
    Deployment deployment;
    try {
      deployment = connect.apply(setup);
    } catch (RuntimeException e) {
      timer.shutdown();
      throw e;
    }
    try {
      DeploymentReport report =
          Capabilities.probe(
              deployment,
              settings.replication() != null,
              options.wakeUps(),
              /* record= */ !checkOnly,
              settings.commandTimeoutNanos(),
              options.namespace());
      if (checkOnly) {
        deployment.close();
        timer.shutdown();
        return new Started(null, report);
      }
      if (!report.ok()) {
        throw new WardenException(
            "cannot use "
                + report.deployment()
                + ": it refuses what Warden needs: "
                + report.refused().stream()
                    .map(DeploymentReport.Check::toString)
                    .collect(Collectors.joining("; ")));
      }
      if (report.wakeUps() == WakeUps.FROM_CLIENT && options.wakeUps() == WakeUps.AUTO) {
        log.info(
            "{} refuses PUBLISH in scripts: this client publishes each wake-up after its script"
                + " (WakeUps.FROM_CLIENT)",
            report.deployment());
      }
      runtime =
          new WardenRuntime(
              setup, owners, deployment, timer, options.namespace(), report.wakeUps());
    } catch (RuntimeException e) {
      deployment.close();
      timer.shutdown();
      throw e;
    }
    options.listeners().forEach(runtime::addListener);
    return new Started(runtime, null);
  }

  public DistributedLock lock(String name) {
    return locks.lock(name);
  }

  public DistributedLock fairLock(String name) {
    return locks.fairLock(name);
  }

  public DistributedReadWriteLock readWriteLock(String name) {
    return locks.readWriteLock(name);
  }

  public DistributedLock multiLock(DistributedLock... locks) {
    return this.locks.multiLock(locks);
  }

  public static DistributedLock quorumLock(DistributedLock... locks) {
    return new QuorumLock(locks);
  }

  public LockInfo inspect(String name) {
    return locks.inspect(name);
  }

  public DistributedSemaphore semaphore(String name) {
    return synchronizers.semaphore(name);
  }

  public LeasedSemaphore leasedSemaphore(String name) {
    return synchronizers.leasedSemaphore(name);
  }

  public DistributedCountDownLatch countDownLatch(String name) {
    return synchronizers.countDownLatch(name);
  }

  /** A new leadership of that name, on the reentrant lock of that name; closed with this. */
  public Leadership leadership(String name) {
    DistributedLock lock = locks.lock(name); // checks the name
    LockLeadership leadership =
        new LockLeadership(name, lock, timer, callbacks, leaderships::remove);
    leaderships.add(leadership);
    if (closed) {
      leadership.wardenClosed(); // closed meanwhile: it never campaigns
    }
    return leadership;
  }

  public void addListener(WardenListener listener) {
    events.add(Args.required("listener", listener));
  }

  public boolean removeListener(WardenListener listener) {
    return events.remove(listener);
  }

  public WardenActivity activity() {
    return new WardenActivity(locks.activity(), waiting.activity());
  }

  public WardenStats stats() {
    return new WardenStats(
        locks.holds(),
        keeper.size(),
        keeper.isRunning(),
        subscriptions.subscriptions(),
        waiting.pending(),
        subscriptions.parked(),
        deployment.replicaWaits().acknowledged(),
        deployment.replicaWaits().shortfalls());
  }

  /**
   * Closes gracefully: new acquisitions fail (re-entries of held locks apart) and waiting ones fail
   * at once, leaving their queues; leaderships end as their {@code close()} ends them (the revoked
   * callback, then the lock released); holders have up to {@code grace} to release; then every hold
   * still held is ended on its owner's behalf ({@link Locks#revokeAll}: marked lost, its owner
   * told, its owner-checked release sent and waited for up to the command timeout); then {@link
   * #close()}. Blocks the caller for up to the grace plus the command timeout. A second call, or
   * one after {@link #close()}, returns at once; {@link #close()} during the grace ends it then.
   */
  public void close(Duration grace) {
    long graceNanos = Args.notNegativeMillis("grace", grace) * 1_000_000L;
    synchronized (this) {
      if (closed || closing) {
        return;
      }
      closing = true;
    }
    try {
      waiting.drain("the Warden is closing and takes no new acquisitions");
      leaderships.forEach(LockLeadership::wardenClosing); // leaders step down and hand over
      if (Boolean.TRUE.equals(awaitQuietly(locks.whenReleased(graceNanos))) || closed) {
        return;
      }
      waiting.close(); // re-entries too, from now
      Locks.Revoked revoked =
          locks.revokeAll(
              "the Warden's graceful close released it: its grace period ("
                  + grace
                  + ") ran out while it was held");
      if (revoked.holds() > 0) {
        log.warn(
            "closing: {} holds were still held after the grace period ({}); released them",
            revoked.holds(),
            grace);
        awaitQuietly(revoked.releases());
      }
      // releases their owners began before the grace ran out end within a command timeout
      awaitQuietly(locks.whenReleased(commandTimeoutNanos));
    } finally {
      close();
    }
  }

  /** Waits for a future bounded elsewhere; logs its failure, keeps an interrupt; null if none. */
  private static <T> T awaitQuietly(CompletableFuture<T> future) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          log.warn(
              "closing: a release failed; its lock expires with its lease: {}",
              Failures.unwrap(e).toString());
          return null;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Stops renewal, fails waiting acquisitions and closes the connections. Idempotent. */
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    leaderships.forEach(LockLeadership::wardenClosed);
    keeper.stop();
    waiting.close();
    locks.close();
    deployment.close();
    timer.shutdown();
  }
}
