package dev.warden.internal;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.LockInfo;
import dev.warden.Replication;
import dev.warden.TlsOptions;
import dev.warden.WardenActivity;
import dev.warden.WardenListener;
import dev.warden.WardenStats;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.SystemTimer;
import dev.warden.internal.lease.LeaseKeeper;
import dev.warden.internal.lock.Locks;
import dev.warden.internal.quorum.QuorumLock;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.ClusterDeployment;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.redis.SentinelDeployment;
import dev.warden.internal.redis.SingleServer;
import dev.warden.internal.sync.Synchronizers;
import dev.warden.internal.wait.Subscriptions;
import dev.warden.internal.wait.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The composition root of one {@code Warden}: makes the deployment's connections, the timer, the
 * wake-ups, the lease keeper and the factories of the primitives, hands each its collaborators, and
 * closes them in order. It holds no state of its own beyond them. Public only so that {@code
 * dev.warden.Warden} can reach it; the package is not exported.
 */
public final class WardenRuntime {
  private final Deployment deployment;
  private final SystemTimer timer;
  private final Subscriptions subscriptions;
  private final Waiting waiting;
  private final LeaseKeeper keeper;
  private final Locks locks;
  private final Synchronizers synchronizers;
  private final Events events = new Events();
  private volatile boolean closed;

  private WardenRuntime(Settings settings, Owners owners, Deployment deployment) {
    Clock clock = Clock.SYSTEM;
    Executor callbacks = ForkJoinPool.commonPool();
    this.deployment = deployment;
    this.timer = new SystemTimer();
    Scripts scripts = new Scripts(deployment);
    Calls calls = new Calls(settings, clock, () -> closed);
    this.subscriptions = new Subscriptions(deployment.pubSub(), owners.clientId(), timer, settings);
    this.waiting = new Waiting(settings, clock, timer, subscriptions, events);
    this.keeper = new LeaseKeeper(scripts, timer, clock, callbacks, settings);
    this.locks = new Locks(settings, clock, owners, scripts, calls, waiting, keeper, callbacks);
    this.synchronizers = new Synchronizers(settings, scripts, calls, waiting);
    // after a reconnect Redis may have lost data (restart, failover): check every hold
    deployment.onReconnect(keeper::renewNow);
  }

  /**
   * Connects and returns a runtime; {@code tls} may be null (TLS only if the URI says so).
   *
   * @throws IllegalArgumentException if the URI is malformed
   * @throws dev.warden.WardenException if Redis cannot be reached
   */
  public static WardenRuntime start(
      String uri,
      Duration watchdogTimeout,
      Duration commandTimeout,
      Duration recheckInterval,
      TlsOptions tls,
      Replication replication) {
    Owners owners = new Owners();
    String clientName = "warden-" + owners.clientId();
    Deployment deployment =
        SentinelDeployment.isSentinelUri(uri)
            ? SentinelDeployment.connect(uri, commandTimeout, clientName, tls)
            : SingleServer.connect(uri, commandTimeout, clientName, tls);
    return new WardenRuntime(
        new Settings(watchdogTimeout, commandTimeout, recheckInterval, replication),
        owners,
        deployment);
  }

  /**
   * Connects to a Redis Cluster through {@code seedUris} and returns a runtime.
   *
   * @throws IllegalArgumentException if a URI is malformed
   * @throws dev.warden.WardenException if no seed can be reached
   */
  public static WardenRuntime startCluster(
      List<String> seedUris,
      Duration watchdogTimeout,
      Duration commandTimeout,
      Duration recheckInterval,
      TlsOptions tls,
      Replication replication) {
    Owners owners = new Owners();
    Deployment deployment =
        ClusterDeployment.connect(seedUris, commandTimeout, "warden-" + owners.clientId(), tls);
    return new WardenRuntime(
        new Settings(watchdogTimeout, commandTimeout, recheckInterval, replication),
        owners,
        deployment);
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

  public void addListener(WardenListener listener) {
    events.add(listener);
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

  /** Stops renewal, fails waiting acquisitions and closes the connections. Idempotent. */
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    keeper.stop();
    waiting.close();
    locks.close();
    deployment.close();
    timer.shutdown();
  }

  /** A builder argument check: names the argument and its value. */
  public static String requireText(String argument, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(argument + " must not be null or blank: " + value);
    }
    return value;
  }

  /** A builder argument check: names the argument and its value. */
  public static Duration atLeast(String argument, Duration value, Duration minimum) {
    if (value == null || value.compareTo(minimum) < 0) {
      throw new IllegalArgumentException(argument + " must be at least " + minimum + ": " + value);
    }
    return value;
  }

  /** A builder argument check: names the argument. */
  public static <T> T required(String argument, T value) {
    if (value == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    return value;
  }

  /** The cluster builder's check: at least one seed, none null or blank; names the bad one. */
  public static List<String> requireSeeds(String... seedUris) {
    if (required("seedUris", seedUris).length == 0) {
      throw new IllegalArgumentException("seedUris must not be empty");
    }
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < seedUris.length; i++) {
      seeds.add(requireText("seedUris[" + i + "]", seedUris[i]));
    }
    return seeds;
  }
}
