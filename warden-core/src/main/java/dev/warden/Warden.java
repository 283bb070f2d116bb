package dev.warden;

import dev.warden.internal.WardenOptions;
import dev.warden.internal.WardenRuntime;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/**
 * The entry point: one connection set to one Redis deployment, from which locks and synchronizers
 * are made.
 *
 * <pre>{@code
 * try (Warden warden = Warden.connect("redis://localhost:6379")) {
 *   DistributedLock lock = warden.lock("nightly-report");
 *   if (lock.tryLock(0, TimeUnit.SECONDS)) {
 *     try {
 *       runReport();
 *     } finally {
 *       lock.unlock();
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>A {@code Warden} is thread-safe and meant to live as long as the application. It owns one
 * timer thread ({@code warden-timer-N}, which also renews leases), its own Lettuce event-loop
 * threads (unless {@link Builder#clientResources} hands it the application's), while a quorum lock
 * calls its locks the threads of those calls ({@code warden-quorum-N}, ended after 60 s idle), and
 * its connections: a command connection and a pub/sub connection (for wake-ups) to the server; on
 * Redis Cluster, both to each node it uses (see {@link Builder#cluster(String...)}); under
 * Sentinel, both to the current master, a command and a pub/sub connection to each sentinel, and
 * one more thread ({@code warden-sentinel-N}) that follows failovers; under a {@link Replication}
 * policy, one more connection to each master, for {@code WAIT}. CONCURRENCY.md names every thread
 * and what it may do. Each instance is a distinct owner: the same thread holding a lock through two
 * instances is two owners.
 *
 * <p>{@link #close()} stops lease renewal and closes the connections; it does not release held
 * locks, which then expire when their lease runs out. {@link #close(Duration)} closes gracefully:
 * it lets holders finish for a grace period, then releases what they still hold, so that another
 * instance gets the locks at once instead of after a lease.
 *
 * @since 0.2
 */
public final class Warden implements AutoCloseable {
  /**
   * The default lease of holds taken without an explicit lease, renewed every third of it while
   * held: 30 s ({@link Builder#watchdogTimeout(Duration)}).
   *
   * @since 0.2
   */
  public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The default bound of one Redis call: 5 s ({@link Builder#commandTimeout(Duration)}).
   *
   * @since 0.2
   */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The default interval at which a waiting acquirer re-checks when no release message arrives: 200
   * ms ({@link Builder#recheckInterval(Duration)}; a lock's parked acquirers back off from it to 1
   * s while the lock stays held elsewhere).
   *
   * @since 0.2
   */
  public static final Duration DEFAULT_RECHECK_INTERVAL = Duration.ofMillis(200);

  private final WardenRuntime runtime;

  private Warden(WardenRuntime runtime) {
    this.runtime = runtime;
  }

  /**
   * Connects to the Redis given by a Lettuce URI ({@code redis://}, {@code rediss://}, {@code
   * redis-sentinel://}) with default options. With {@code redis-sentinel://h1:p1,h2:p2#name} (or
   * {@code rediss-sentinel://}), Warden asks the sentinels for the master and follows it across
   * failovers: it moves to the replica being promoted as soon as the sentinels select it, writes
   * nothing more to the demoted master, and re-checks every hold there (a hold the failover lost
   * completes its {@code leaseLost()} at once). The URI's password, TLS settings and database apply
   * to the data nodes, as in Lettuce.
   *
   * @param redisUri the address of Redis, in Lettuce's URI syntax
   * @return a connected {@code Warden}; close it when done
   * @throws IllegalArgumentException if the URI is null, blank or malformed
   * @throws WardenException if Redis cannot be reached
   */
  public static Warden connect(String redisUri) {
    return builder().uri(redisUri).build();
  }

  /**
   * Returns a builder for a {@code Warden} with non-default options.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the reentrant lock of that name. Cheap: no round trip; instances of the same name share
   * state.
   *
   * @param name the lock's name
   * @return the lock
   * @throws IllegalArgumentException if the name is null, empty, or contains '{' or '}'
   */
  public DistributedLock lock(String name) {
    return runtime.lock(name);
  }

  /**
   * Reads the state of the reentrant lock of that name in one atomic step: holders, hold counts,
   * time to live, fencing tokens and waiting clients. One round trip.
   *
   * @param lockName the name of the reentrant lock
   * @return the lock's state now
   */
  public LockInfo inspect(String lockName) {
    return runtime.inspect(lockName);
  }

  /**
   * Returns what this instance holds, renews and waits for now: for metrics and leak checks.
   *
   * @return a snapshot of this instance's counters
   */
  public WardenStats stats() {
    return runtime.stats();
  }

  /**
   * Returns what this instance holds and waits for now, object by object, without a round trip.
   *
   * @return a snapshot of this instance's holds and acquisitions in progress
   * @since 0.2
   */
  public WardenActivity activity() {
    return runtime.activity();
  }

  /**
   * Registers a listener for this instance's events (acquisitions, holds, renewals, lost leases),
   * from now on; see {@link WardenListener} for the threads it is called on. Registering the same
   * listener twice makes it hear every event twice.
   *
   * @param listener the listener
   * @throws IllegalArgumentException if it is null
   * @since 0.2
   */
  public void addListener(WardenListener listener) {
    runtime.addListener(listener);
  }

  /**
   * Removes one registration of a listener; it hears no event that starts after this returns.
   *
   * @param listener the listener
   * @return whether it was registered
   * @since 0.2
   */
  public boolean removeListener(WardenListener listener) {
    return runtime.removeListener(listener);
  }

  /**
   * Returns a leader election for that name, not yet started: register its callbacks, then {@link
   * Leadership#start()}. The leadership is the hold of {@link #lock(String) lock(name)} by a
   * handle; its term is that hold's fencing token. Cheap: no round trip until started. See {@link
   * Leadership}.
   *
   * @param name the name; also the name of the lock that the leader holds
   * @return the leadership, not started
   * @throws IllegalArgumentException if the name is null, empty, or contains '{' or '}'
   * @since 0.2
   */
  public Leadership leadership(String name) {
    return runtime.leadership(name);
  }

  /**
   * Returns the fair (first-come, first-served) lock of that name.
   *
   * @param name the lock's name
   * @return the fair lock
   */
  public DistributedLock fairLock(String name) {
    return runtime.fairLock(name);
  }

  /**
   * Returns the read-write lock of that name.
   *
   * @param name the lock's name
   * @return the read-write lock
   */
  public DistributedReadWriteLock readWriteLock(String name) {
    return runtime.readWriteLock(name);
  }

  /**
   * Returns a lock that holds all of the given locks or none of them.
   *
   * @param locks the locks, each made by this {@code Warden}
   * @return the multi-lock
   */
  public DistributedLock multiLock(DistributedLock... locks) {
    return runtime.multiLock(locks);
  }

  /**
   * Returns the quorum lock (Redlock) of the same-named locks of independent deployments, one
   * {@code Warden} each: held while a majority holds it within its validity (see docs/locks.md).
   *
   * @param locks {@code warden.lock(name)} of each deployment's {@code Warden}
   * @return the quorum lock
   * @throws IllegalArgumentException if there are none, or they are not such locks
   * @since 0.2
   */
  public static DistributedLock quorumLock(DistributedLock... locks) {
    return WardenRuntime.quorumLock(locks);
  }

  /**
   * Returns the semaphore of that name. Cheap: no round trip; instances of the same name share
   * state, and a semaphore has no permits until they are set.
   *
   * @param name the semaphore's name
   * @return the semaphore
   * @throws IllegalArgumentException if the name is null, blank, or contains '{' or '}'
   */
  public DistributedSemaphore semaphore(String name) {
    return runtime.semaphore(name);
  }

  /**
   * Returns the leased semaphore of that name. Cheap: no round trip; instances of the same name
   * share state. It is not the semaphore of the same name: the two kinds keep separate state.
   *
   * @param name the leased semaphore's name
   * @return the leased semaphore
   * @throws IllegalArgumentException if the name is null, blank, or contains '{' or '}'
   */
  public LeasedSemaphore leasedSemaphore(String name) {
    return runtime.leasedSemaphore(name);
  }

  /**
   * Returns the count-down latch of that name. Cheap: no round trip; instances of the same name
   * share state, and a latch is open until its count is set.
   *
   * @param name the latch's name
   * @return the latch
   * @throws IllegalArgumentException if the name is null, blank, or contains '{' or '}'
   */
  public DistributedCountDownLatch countDownLatch(String name) {
    return runtime.countDownLatch(name);
  }

  /**
   * Stops lease renewal and closes the connections. Held locks are not released: they expire when
   * their lease runs out; so do leased permits, while a semaphore's permits stay taken until
   * somebody releases them. Waiting acquirers and awaiters fail with {@link WardenException}.
   * Idempotent.
   */
  @Override
  public void close() {
    runtime.close();
  }

  /**
   * Closes gracefully, handing the locks over: for a rolling deploy, where another instance should
   * get them at once rather than after a lease. In order:
   *
   * <ol>
   *   <li>New acquisitions fail with a {@link WardenException} naming the object ("the Warden is
   *       closing and takes no new acquisitions"), as do those waiting now, at once: they leave
   *       fair queues and give back what they may have been granted. Re-entries of a lock the
   *       caller already holds still succeed, so holders can finish their work.
   *   <li>Holders have up to {@code grace} to release; leases are renewed meanwhile, and releases,
   *       semaphore releases and count-downs work as usual.
   *   <li>Every lock still held then is released on its holder's behalf, owner-checked (a hold this
   *       instance has lost, perhaps taken by another owner since, is never touched), and the
   *       holder is told: {@link LockHandle#leaseLost()} completes, listeners hear {@link
   *       WardenListener#leaseLost(ObjectType, String, long, WardenListener.LossReason)} with
   *       {@link WardenListener.LossReason#SHUTDOWN}, and its later {@code unlock()} or {@code
   *       close()} throws {@link LeaseExpiredException} saying so.
   *   <li>Then as {@link #close()}.
   * </ol>
   *
   * <p>Semaphore permits are not released (a permit has no owner Warden could act for; a leased
   * permit expires with its lease). Blocks for at most {@code grace} plus the command timeout,
   * uninterruptibly (an interrupt is kept for the caller). A second call returns at once; {@link
   * #close()} during the grace ends it there, leaving held locks to expire.
   *
   * @param grace how long holders may go on before their locks are released; zero releases at once
   * @throws IllegalArgumentException if it is null or negative
   * @since 0.2
   */
  public void close(Duration grace) {
    runtime.close(grace);
  }

  /**
   * Options for a {@link Warden}; every option has a default except the address.
   *
   * @since 0.2
   */
  public static final class Builder {
    private final WardenOptions options = new WardenOptions();

    private Builder() {}

    /**
     * Sets the Redis URI (Lettuce syntax): {@code redis://} or {@code rediss://} for one server,
     * {@code redis-sentinel://h1:p1,h2:p2#name} for a master that Sentinel manages (see {@link
     * Warden#connect(String)}).
     *
     * @param redisUri the address of Redis
     * @return this builder
     * @throws IllegalArgumentException if the URI is null or blank
     */
    public Builder uri(String redisUri) {
      options.uri(redisUri);
      return this;
    }

    /**
     * Connects to a Redis Cluster instead of one server: {@code seedUris} are the addresses ({@code
     * redis://host:port}, with credentials if needed) of some of its nodes, from which the whole
     * topology is learnt. Replaces the seeds of an earlier call.
     *
     * <p>Every object lives in one hash slot, chosen by the {@code {name}} hash tag of its keys, so
     * every call is one script on the master of that slot; objects of different names spread over
     * the shards, and a multi-lock may span slots. Wake-ups use sharded pub/sub (SSUBSCRIBE on the
     * slot's master) and follow slot moves and failovers. The topology is re-read every second and
     * after redirections; when a slot changes master, every hold is re-checked at once, so a hold
     * lost with a failover (replication is asynchronous) completes {@link LockHandle#leaseLost()}
     * and makes {@code unlock()} throw {@link LeaseExpiredException} within about a second.
     *
     * @param seedUris the addresses of some of the cluster's nodes
     * @return this builder
     * @throws IllegalArgumentException if there are none, or one is null or blank
     */
    public Builder cluster(String... seedUris) {
      options.cluster(seedUris);
      return this;
    }

    /**
     * Sets the lease of holds taken without an explicit lease; they are renewed every third of it
     * while held. Default {@link Warden#DEFAULT_WATCHDOG_TIMEOUT 30 s}; at least 30 ms.
     *
     * @param watchdogTimeout the new value
     * @return this builder
     * @throws IllegalArgumentException if it is null or below its minimum
     */
    public Builder watchdogTimeout(Duration watchdogTimeout) {
      options.watchdogTimeout(watchdogTimeout);
      return this;
    }

    /**
     * Sets how long a Redis call may take before it fails ({@link WardenException}); default {@link
     * Warden#DEFAULT_COMMAND_TIMEOUT 5 s}. It also bounds each socket connect.
     *
     * @param commandTimeout the new value
     * @return this builder
     * @throws IllegalArgumentException if it is null or below its minimum
     */
    public Builder commandTimeout(Duration commandTimeout) {
      options.commandTimeout(commandTimeout);
      return this;
    }

    /**
     * Sets how often a waiting acquirer re-checks the lock when no release message arrives: the
     * bound on what a lost pub/sub message can cost. Default {@link Warden#DEFAULT_RECHECK_INTERVAL
     * 200 ms}.
     *
     * <p>The parked acquirers of a lock (reentrant or fair) in one client share one re-check, which
     * backs off while the lock stays held by another client: after each refusal it waits twice as
     * long, up to 1 s, or this interval if it is longer, and it is back to this interval after any
     * wake-up, re-subscription, local hand-off or new first waiter. So a wake-up lost after a
     * lock's acquirers have waited a while is found within 1 s (or this interval, if longer); a
     * holder's lease that runs out is still re-checked when it runs out. Other waits (semaphores,
     * latches, ...) re-check at this interval.
     *
     * @param recheckInterval the new value
     * @return this builder
     * @throws IllegalArgumentException if it is null or below its minimum
     */
    public Builder recheckInterval(Duration recheckInterval) {
      options.recheckInterval(recheckInterval);
      return this;
    }

    /**
     * Registers a listener from the start, so that it hears every event of the new instance (see
     * {@link Warden#addListener(WardenListener)}). May be called more than once.
     *
     * @param listener the listener
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder listener(WardenListener listener) {
      options.listener(listener);
      return this;
    }

    /**
     * Connects with TLS as {@link TlsOptions} say (without it, only a {@code rediss://} URI does).
     *
     * @param tls the TLS options
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder tls(TlsOptions tls) {
      options.tls(tls);
      return this;
    }

    /**
     * Authenticates every connection to the data nodes (one server, a Sentinel deployment's master
     * and replicas, every node of a cluster; command, pub/sub and {@code WAIT} connections alike)
     * with the credentials of {@code credentials}, in place of a password in the URIs: for tokens
     * that expire, such as AWS ElastiCache and MemoryDB IAM tokens or Azure Entra ID tokens.
     * Lettuce asks the provider at every connect and reconnect, so a connection cut after its token
     * expired (ElastiCache cuts IAM connections after 12 hours) comes back with fresh credentials.
     * A streaming provider ({@code supportsStreaming()} true, as Lettuce's {@code
     * TokenBasedRedisCredentialsProvider}) also re-authenticates every live connection with {@code
     * AUTH} as it sends new credentials. The sentinels themselves are reached as their URIs say.
     * Never logged or shown; a refused credential fails {@code build()} or a later call with a
     * {@link WardenException} that does not quote it (docs/operations.md, "Rotating credentials").
     *
     * @param credentials the provider, e.g. {@code RedisCredentialsProvider.from(() ->
     *     RedisCredentials.just(user, tokens.current()))}
     * @return this builder
     * @throws IllegalArgumentException if it is null; {@link #build()} throws it if a URI also
     *     carries a password
     * @since 0.2
     */
    public Builder credentials(RedisCredentialsProvider credentials) {
      options.credentials(credentials);
      return this;
    }

    /**
     * Runs this {@code Warden}'s Lettuce clients on the application's client resources (event
     * loops, timers, event bus) instead of its own, so that it starts no threads of that kind; it
     * never shuts them down: close them after the {@code Warden}. Their reconnect delay then
     * applies: Warden's own resources cap it at 1 s (10 ms at first, doubling), so that after Redis
     * comes back waiters and the lease keeper notice within a second; Lettuce's default grows to 30
     * s. Give them {@code reconnectDelay(Delay.exponential(Duration.ofMillis(10),
     * Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))} to keep Warden's behaviour.
     *
     * @param clientResources the application's resources
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder clientResources(ClientResources clientResources) {
      options.clientResources(clientResources);
      return this;
    }

    /**
     * Bounds how long the lease keeper renews a hold: a hold taken without an explicit lease is
     * renewed until {@code maxHoldTime} after it was taken (its first acquisition; re-entries do
     * not restart it), and no longer. Its last renewal makes its lease end at that limit; then
     * Redis frees the lock, and the holder is told: {@link LockHandle#leaseLost()} completes,
     * listeners hear {@link WardenListener#leaseLost(ObjectType, String, long,
     * WardenListener.LossReason)} with {@link WardenListener.LossReason#MAX_HOLD_TIME}, and its
     * {@code unlock()} or {@code close()} throws {@link LeaseExpiredException} naming the limit. So
     * a holder that is alive but stuck cannot keep a lock for ever. Holds taken with an explicit
     * lease, and handles whose lease was set by {@code extend}, are not renewed, so the limit does
     * not apply to them. Default: none (renewed for as long as held).
     *
     * @param maxHoldTime how long a hold is renewed at most; at least the watchdog timeout, at most
     *     100 years
     * @return this builder
     * @throws IllegalArgumentException if it is null, below 30 ms or above 100 years; {@link
     *     #build()} throws it if it is below the watchdog timeout
     * @since 0.2
     */
    public Builder maxHoldTime(Duration maxHoldTime) {
      options.maxHoldTime(maxHoldTime);
      return this;
    }

    /**
     * Lets semaphores, leased semaphores and count-down latches that nobody uses expire, so that
     * objects made per job or per tenant do not stay in Redis for ever (by default they never
     * expire). Every operation on one keeps it alive for {@code idleExpiry} more: a semaphore's
     * {@code acquire}, {@code tryAcquire}, {@code release}, {@code trySetPermits}, {@code
     * addPermits}, {@code drainPermits}, and each look of a waiting acquirer; a latch's {@code
     * trySetCount}, {@code countDown} and each look of an awaiter; a leased semaphore's {@code
     * acquire}, {@code release}, {@code updateLeaseTime}, {@code trySetPermits} and {@code
     * addPermits}. Reads ({@code availablePermits}, {@code getCount}) do not. Once expired, a
     * semaphore is as if never set ({@code availablePermits()} is 0, {@code trySetPermits} sets it
     * again), and a latch reads as open ({@code getCount()} is 0, {@code await} returns at once). A
     * semaphore does not know who took its permits: choose an expiry longer than any permit is held
     * without another operation on the semaphore, or permits given back after the expiry are
     * counted into a fresh semaphore. A leased semaphore lives at least until its last lease ends
     * plus {@code idleExpiry}, so no leased permit is lost with it. Waiters keep an object alive
     * only while their looks reach Redis, and only if their {@code Warden} has the expiry too. One
     * whose looks fail for a command timeout fails, before a frozen or unreachable server could let
     * the object expire under it; but an object that nobody reaches for longer than {@code
     * idleExpiry} otherwise (paused clients, a restart from a file older than that) expires though
     * waited on, and a latch then lets its awaiters through without being counted down. Choose an
     * expiry far longer than any such outage.
     *
     * @param idleExpiry how long a semaphore or latch lives after its last operation; at least 1 s,
     *     four recheck intervals and twice the command timeout (10 s by default; checked by {@link
     *     #build()}: a call retried after a lost reply must find what it changed still there), at
     *     most 10000 years
     * @return this builder
     * @throws IllegalArgumentException if it is null, below 1 s or above 10000 years
     * @since 0.2
     */
    public Builder synchronizerIdleExpiry(Duration idleExpiry) {
      options.synchronizerIdleExpiry(idleExpiry);
      return this;
    }

    /**
     * Puts every key and channel this {@code Warden} uses under a prefix: {@code
     * billing:warden:{NAME}:lock} instead of {@code warden:{NAME}:lock}, for every object (locks
     * and their fences, queues, markers and conditions, semaphores, latches), every release channel
     * (sharded ones on a cluster too), the replication marker and the capability check's probe. The
     * hash tag {@code {NAME}} stays as it was, so an object's slot, and which objects share one, do
     * not change. Two {@code Warden}s with different prefixes never see each other's objects, even
     * of the same name; the same prefix is the same namespace. An ACL rule can confine a user to
     * it: {@code ~billing:warden:* &billing:warden:*} (docs/operations.md, "Key prefixes").
     * Default: none ({@code warden:}).
     *
     * @param keyPrefix 1 to 64 letters, digits and {@code . _ - /}, in segments joined by single
     *     colons ({@code billing}, {@code team-a:billing})
     * @return this builder
     * @throws IllegalArgumentException if it is null, empty, too long, holds another character (a
     *     brace would move the hash tag; a blank or glob character would not fit an ACL pattern),
     *     or has a segment {@code warden} (the ACL pattern of a shorter prefix, or of none, would
     *     cover its keys)
     * @since 0.2
     */
    public Builder keyPrefix(String keyPrefix) {
      options.keyPrefix(keyPrefix);
      return this;
    }

    /**
     * Sets when an acquisition counts as done (see {@link Replication}). Default {@link
     * Replication#none()}. Its timeout must be below the command timeout.
     *
     * @param replication the policy
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder replication(Replication replication) {
      options.replication(replication);
      return this;
    }

    /**
     * Sets who publishes the wake-ups that tell waiting clients to try again (see {@link WakeUps}).
     * Default {@link WakeUps#AUTO}: the scripts, or the client where the deployment refuses {@code
     * PUBLISH} inside scripts ({@link #check()} reports which).
     *
     * @param wakeUps who publishes them
     * @return this builder
     * @throws IllegalArgumentException if it is null
     * @since 0.2
     */
    public Builder wakeUps(WakeUps wakeUps) {
      options.wakeUps(wakeUps);
      return this;
    }

    /**
     * Connects and returns the {@link Warden}.
     *
     * @return a connected {@code Warden}; close it when done
     * @throws IllegalStateException if neither a URI nor cluster seeds were set, or both were
     * @throws IllegalArgumentException if a URI is malformed, the replication timeout is not below
     *     the command timeout, or the synchronizer idle expiry is below four recheck intervals or
     *     twice the command timeout
     * @throws WardenException if Redis cannot be reached (for a cluster: none of the seeds), the
     *     TLS handshake fails, Redis refuses the user, or the deployment refuses something Warden
     *     needs there (see {@link #check()}; the message says which)
     */
    public Warden build() {
      return new Warden(WardenRuntime.start(options));
    }

    /**
     * Connects as {@link #build()} would, checks what the deployment allows of what Warden needs
     * there, disconnects and returns the report ({@code warden doctor} prints it). {@code build()}
     * runs the same checks after connecting, in one round trip, and throws {@link WardenException}
     * naming each refused one: scripts ({@code EVALSHA}/{@code EVAL}); {@code TIME} and the wake-up
     * publish ({@code PUBLISH}, {@code SPUBLISH} on a cluster) from a script (or, under {@link
     * WakeUps#FROM_CLIENT} or where {@link WakeUps#AUTO} falls back to it, from the client); on a
     * cluster {@code CLUSTER MYID} and {@code CLUSTER INFO} from a script; every command of
     * Warden's scripts under the user's ACL; the wake-up subscription ({@code SUBSCRIBE}/{@code
     * SSUBSCRIBE}); {@code WAIT} under a replication policy other than {@link Replication#none()};
     * and one writable master ({@code INFO replication}: a KeyDB active replica or a read-only
     * replica is refused); and the on-Redis data format (a newer Warden's data that this version
     * would misread is refused: docs/operations.md, "Upgrades"). {@code build()} records this
     * version's format in the deployment's format marker; this check only reads it.
     *
     * @return the report; {@link DeploymentReport#ok()} tells whether {@code build()} would succeed
     * @throws IllegalStateException if neither a URI nor cluster seeds were set, or both were
     * @throws IllegalArgumentException if a URI is malformed
     * @throws WardenException if Redis cannot be reached or does not answer
     * @since 0.2
     */
    public DeploymentReport check() {
      return WardenRuntime.check(options);
    }
  }
}
