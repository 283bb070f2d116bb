package dev.warden.internal;

import dev.warden.DistributedCountDownLatch;
import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LeasedSemaphore;
import dev.warden.LockInfo;
import dev.warden.WardenException;
import dev.warden.WardenStats;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.net.SocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything one {@code Warden} owns: the Redis client and its two connections, the timer thread,
 * the lease keeper, the wake-ups, and this client's registry of holds. Public only so that {@code
 * dev.warden.Warden} can reach it; the package is not exported.
 */
public final class WardenRuntime {
  /** How long the fence counter outlives its last reset; see lock-acquire.lua. */
  private static final long FENCE_RETENTION_MILLIS = TimeUnit.HOURS.toMillis(1);

  /** The same, as every acquisition script takes it. */
  private static final String FENCE_RETENTION_ARGUMENT = Long.toString(FENCE_RETENTION_MILLIS);

  private static final AtomicInteger timerThreads = new AtomicInteger();

  private final String id;
  private final String ownerPrefix;
  private final String address;
  private final ClientResources resources;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final ScheduledThreadPoolExecutor timer;
  private final Executor callbacks = ForkJoinPool.commonPool();
  private final Scripts scripts;
  private final WakeUps wakeUps;
  private final LeaseKeeper leaseKeeper;
  private final Map<String, Hold> holds = new ConcurrentHashMap<>();

  /** The owner of this client holding each reentrant lock, by hold key (one holder each). */
  private final Map<String, String> reentrantHolders = new ConcurrentHashMap<>();

  private final Set<Acquisition<?>> acquisitions = ConcurrentHashMap.newKeySet();
  private final long commandTimeoutNanos;
  private final long recheckNanos;
  private final AtomicLong handles = new AtomicLong();
  private final AtomicLong acquisitionIds = new AtomicLong();
  private volatile boolean closed;

  // FutureReturnValueIgnored: resources.shutdown: a failed start does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  private WardenRuntime(
      RedisURI uri, Duration watchdogTimeout, Duration commandTimeout, Duration recheckInterval) {
    this.id = newId();
    this.ownerPrefix = id + ":";
    this.address = uri.toString();
    this.commandTimeoutNanos = commandTimeout.toNanos();
    this.recheckNanos = recheckInterval.toNanos();
    // Reconnect back-off capped at one second (Lettuce's default grows to 30 s): once Redis is
    // back, waiters and the lease keeper must notice within a second, not half a minute.
    this.resources =
        DefaultClientResources.builder()
            .reconnectDelay(
                () ->
                    Delay.exponential(
                        Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
            .build();
    this.client = RedisClient.create(resources, uri);
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(true)
            .replayFilter(new NoScriptReplay())
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .build());
    StatefulRedisConnection<String, String> commands = null;
    StatefulRedisPubSubConnection<String, String> pubSub = null;
    try {
      commands = client.connect();
      pubSub = client.connectPubSub();
      commands.sync().clientSetname("warden-" + id);
      pubSub.sync().clientSetname("warden-" + id + "-pubsub");
    } catch (RedisException e) {
      if (commands != null) {
        commands.close();
      }
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw new WardenException("cannot connect to Redis at " + address + ": " + e.getMessage(), e);
    }
    this.connection = commands;
    this.timer = new ScheduledThreadPoolExecutor(1, this::newTimerThread);
    timer.setRemoveOnCancelPolicy(true);
    this.scripts = new Scripts(connection.async());
    this.wakeUps = new WakeUps(pubSub, id, timer);
    this.leaseKeeper = new LeaseKeeper(scripts, timer, callbacks, watchdogTimeout.toMillis());
    client.addListener(
        new RedisConnectionStateListener() {
          @Override
          public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
            if (handler == connection) {
              // after a reconnect Redis may have lost data (restart, failover): check every hold
              leaseKeeper.renewNow();
            }
          }
        });
  }

  /**
   * Connects and returns a runtime.
   *
   * @throws IllegalArgumentException if the URI is malformed
   * @throws WardenException if Redis cannot be reached
   */
  public static WardenRuntime start(
      String uri, Duration watchdogTimeout, Duration commandTimeout, Duration recheckInterval) {
    RedisURI redisUri;
    try {
      redisUri = RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "redisUri is not a valid Redis URI: " + uri + " (" + e.getMessage() + ")", e);
    }
    redisUri.setTimeout(commandTimeout);
    return new WardenRuntime(redisUri, watchdogTimeout, commandTimeout, recheckInterval);
  }

  public DistributedLock lock(String name) {
    return new RedisMutex(this, new ReentrantDriver(this, LockKeys.of(name)));
  }

  public LockInfo inspect(String name) {
    return LockInspector.inspect(this, LockKeys.of(name));
  }

  public WardenStats stats() {
    int renewed = leaseKeeper.size();
    return new WardenStats(
        holds.size(),
        renewed,
        leaseKeeper.isRunning(),
        wakeUps.subscriptions(),
        acquisitions.size(),
        wakeUps.parked());
  }

  public DistributedLock fairLock(String name) {
    return new RedisMutex(this, new FairDriver(this, name));
  }

  public DistributedReadWriteLock readWriteLock(String name) {
    return new RedisReadWriteLock(this, name);
  }

  public DistributedLock multiLock(DistributedLock... locks) {
    return new RedisMultiLock(this, locks);
  }

  public DistributedSemaphore semaphore(String name) {
    return new RedisSemaphore(this, SyncKeys.semaphore(name));
  }

  public LeasedSemaphore leasedSemaphore(String name) {
    return new RedisLeasedSemaphore(this, SyncKeys.leasedSemaphore(name));
  }

  public DistributedCountDownLatch countDownLatch(String name) {
    return new RedisCountDownLatch(this, SyncKeys.latch(name));
  }

  /** Stops renewal, fails waiting acquisitions and closes the connections. Idempotent. */
  // FutureReturnValueIgnored: resources.shutdown: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    leaseKeeper.stop();
    for (Acquisition<?> acquisition : acquisitions) {
      acquisition.fail(new WardenException("the Warden was closed while this call waited"));
    }
    wakeUps.close();
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
    timer.shutdownNow();
  }

  // ---- for the primitives in this package ----

  String id() {
    return id;
  }

  /** What every owner id of this client begins with: {@code <client id>:}. */
  String ownerPrefix() {
    return ownerPrefix;
  }

  /** Returns a new acquisition id, unique within this client (see {@link LockDriver#acquire}). */
  String newAcquisitionId() {
    return Long.toString(acquisitionIds.incrementAndGet(), 36);
  }

  /** Returns a new owner id for a {@code LockHandle}: unique within this client and beyond. */
  String newHandleOwner() {
    return id + ":h" + handles.incrementAndGet();
  }

  boolean isClosed() {
    return closed;
  }

  RedisAsyncCommands<String, String> redis() {
    return connection.async();
  }

  Scripts scripts() {
    return scripts;
  }

  /** How long a fence counter outlives its last reset, as a script argument. */
  String fenceRetentionMillis() {
    return FENCE_RETENTION_ARGUMENT;
  }

  WakeUps wakeUps() {
    return wakeUps;
  }

  LeaseKeeper leaseKeeper() {
    return leaseKeeper;
  }

  /**
   * The owner of this client that holds each reentrant lock, by hold key: set when a hold is
   * registered or handed over, removed when it ends or is given back. A thread that finds the lock
   * held by another owner here can wait without asking Redis, because that owner's release hands
   * the lock over or wakes this client's waiters.
   */
  Map<String, String> reentrantHolders() {
    return reentrantHolders;
  }

  Map<String, Hold> holds() {
    return holds;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  Executor callbacks() {
    return callbacks;
  }

  long commandTimeoutNanos() {
    return commandTimeoutNanos;
  }

  long recheckNanos() {
    return recheckNanos;
  }

  /**
   * How long an operation marker lives (see {@link SyncKeys#operation}): longer than an operation
   * is retried (the command timeout, counted from its first failure, plus one last call of up to a
   * command timeout), with room to spare.
   */
  long operationMarkerMillis() {
    return 2 * TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos) + 5_000;
  }

  /** How long past its deadline a timed acquisition may take to report when Redis is silent. */
  long verdictMarginNanos() {
    return Math.min(commandTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(500));
  }

  void register(Acquisition<?> acquisition) {
    acquisitions.add(acquisition);
    if (closed) {
      acquisition.fail(new WardenException("the Warden is closed"));
    }
  }

  void unregister(Acquisition<?> acquisition) {
    acquisitions.remove(acquisition);
  }

  private Thread newTimerThread(Runnable task) {
    Thread thread = new Thread(task, "warden-timer-" + timerThreads.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }

  private static String newId() {
    byte[] bytes = new byte[6];
    new SecureRandom().nextBytes(bytes);
    StringBuilder id = new StringBuilder(12);
    for (byte b : bytes) {
      id.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return id.toString();
  }
}
