package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.LockInfo;
import dev.warden.WardenActivity;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lease.Hold;
import dev.warden.internal.lease.LeaseKeeper;
import dev.warden.internal.lock.driver.FairDriver;
import dev.warden.internal.lock.driver.LockKeys;
import dev.warden.internal.lock.driver.ReentrantDriver;
import dev.warden.internal.redis.Calls;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Waiting;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** The lock primitives of one client: the one way into this package. */
public final class Locks {
  private static final AtomicInteger PART_CALL_THREADS = new AtomicInteger();

  private final LockContext context;
  // a quorum lock's blocking calls to this client's locks; no thread until one is made
  private final ExecutorService partCalls = Executors.newCachedThreadPool(Locks::partCallThread);

  /**
   * @param keeper renews the holds taken without an explicit lease
   * @param callbacks completes the futures users see
   * @param namespace where the locks' keys and channels live
   */
  public Locks(
      Settings settings,
      Clock clock,
      Owners owners,
      Scripts scripts,
      Calls calls,
      Waiting waiting,
      LeaseKeeper keeper,
      Executor callbacks,
      Namespace namespace) {
    this.context =
        new LockContext(
            settings,
            clock,
            owners,
            scripts,
            calls,
            waiting,
            new Holds(keeper, clock),
            new HandOff.Rows(clock),
            callbacks,
            partCalls,
            namespace);
  }

  private static Thread partCallThread(Runnable task) {
    Thread thread = new Thread(task, "warden-quorum-" + PART_CALL_THREADS.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }

  /** The reentrant lock of that name. */
  public DistributedLock lock(String name) {
    return new RedisMutex(context, reentrantDriver(name), LockCore.Guard.NONE);
  }

  /** The fair lock of that name. */
  public DistributedLock fairLock(String name) {
    return new RedisMutex(
        context,
        new FairDriver(
            context.scripts(),
            context.namespace(),
            name,
            context.settings().operationMarkerArgument()),
        LockCore.Guard.NONE);
  }

  /** The read-write lock of that name. */
  public DistributedReadWriteLock readWriteLock(String name) {
    return new RedisReadWriteLock(context, name);
  }

  /** A multi-lock of locks made by this object. */
  public DistributedLock multiLock(DistributedLock... locks) {
    return new RedisMultiLock(context, locks);
  }

  /**
   * The view a quorum lock has of {@code lock} when it is a plain reentrant lock made by some
   * {@code Warden} ({@code Warden.lock(name)}); empty for any other lock.
   */
  public static Optional<QuorumPart> quorumPart(DistributedLock lock) {
    if (!(lock instanceof RedisMutex mutex) || !mutex.core().driver().joinsGroups()) {
      return Optional.empty();
    }
    LockContext context = mutex.core().context();
    return Optional.of(
        new QuorumPart(
            lock,
            mutex.core().driver().keys().fence(),
            context.scripts(),
            context.settings().watchdogLeaseMillis(),
            context.partCalls(),
            context.callbacks(),
            context.clock(),
            context.waiting().timer()));
  }

  /** Reads the reentrant lock's whole state (holders, counts, TTL, tokens, waiting clients). */
  public LockInfo inspect(String name) {
    ReentrantDriver driver = reentrantDriver(name);
    return Calls.awaitUninterruptibly(driver.inspect(), driver.describe(), "inspect");
  }

  /** Every hold this client records now, oldest first. */
  public List<WardenActivity.Hold> activity() {
    return context.holds().activity();
  }

  /** Returns the number of holds this client records now. */
  public int holds() {
    return context.holds().size();
  }

  /**
   * Returns a future that completes with true once no hold of this client is held or being
   * released, or with false after {@code graceNanos}: a graceful close waits on it.
   */
  public CompletableFuture<Boolean> whenReleased(long graceNanos) {
    return context.holds().whenReleased(context.waiting().timer(), graceNanos);
  }

  /**
   * Ends every hold still held on its owner's behalf ({@link Revocation#revoke}): each is marked
   * lost for {@code reason}, its owner told, and its owner-checked release sent. Returns the number
   * of holds ended this way and a future of all their releases, which fails if one failed.
   */
  public Revoked revokeAll(String reason) {
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (Hold hold : context.holds().all()) {
      if (hold.state() == Hold.State.HELD) {
        releases.add(hold.revoke(reason));
      }
    }
    return new Revoked(
        releases.size(), CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)));
  }

  /**
   * What {@link #revokeAll} did.
   *
   * @param holds how many holds it ended
   * @param releases completes when their releases have
   */
  public record Revoked(int holds, CompletableFuture<Void> releases) {}

  /** Stops the threads of quorum-lock calls; calls not yet started are dropped. */
  public void close() {
    context.holds().stopWaiting(); // a graceful close waiting for holders stops waiting
    partCalls.shutdownNow();
  }

  private ReentrantDriver reentrantDriver(String name) {
    return new ReentrantDriver(
        context.scripts(),
        context.owners(),
        LockKeys.of(context.namespace(), name),
        context.settings().operationMarkerArgument());
  }
}
