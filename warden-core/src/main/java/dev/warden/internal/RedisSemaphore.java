package dev.warden.internal;

import dev.warden.DistributedSemaphore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The semaphore: a count of free permits in Redis, changed only by semaphore-update.lua, plus a
 * queue of waiting acquisitions.
 *
 * <p><b>Fairness.</b> An acquisition that has to wait queues itself in Redis in arrival order. The
 * head of the queue has its permits reserved: every other acquisition, waiting or not, may take
 * only the permits beyond those the head needs. Released permits therefore pile up for the head
 * until it has enough, however many single-permit acquirers keep coming, and then the next waiter
 * heads the queue; nobody who waits is passed over forever. Behind the head the order is not
 * strict: a later, smaller request may take permits the head does not need, so that free permits
 * are not left idle. A release names the head in its message, so that the head is woken first
 * wherever it waits, plus as many other waiters as the permits left over could serve.
 *
 * <p>Why a reservation for the head only: it bounds the work of each script (one look at the head,
 * never a walk down the queue) and it is what keeps a large request from starving, which was the
 * point; strict first-come order for everyone would leave permits idle while a woken waiter's turn
 * travels across processes.
 *
 * <p><b>Dead waiters.</b> A queued waiter refreshes its entry at every attempt, at least every
 * {@link #QUEUE_HEARTBEAT_MILLIS}; an entry not refreshed for {@link #QUEUE_ENTRY_LEASE_MILLIS}
 * (its process died, or lost Redis) lapses, and each script drops at most ten lapsed entries. So a
 * crashed waiter holds up the others for about two seconds at most.
 *
 * <p><b>Retries.</b> Every change carries an operation id; the script leaves a marker under it for
 * a little longer than the call may be retried, so a call sent again after a lost reply changes
 * nothing. An acquisition that ends without using a grant (cancelled, timed out, or failed after a
 * lost reply) gives it back by its marker.
 */
final class RedisSemaphore implements DistributedSemaphore {
  private static final Logger log = LoggerFactory.getLogger(RedisSemaphore.class);

  /** How long a queue entry lives unless its waiter refreshes it. */
  static final long QUEUE_ENTRY_LEASE_MILLIS = 2_000;

  /** The longest a queued waiter waits between attempts, each of which refreshes its entry. */
  static final long QUEUE_HEARTBEAT_MILLIS = 500;

  private final WardenRuntime runtime;
  private final SyncKeys keys;

  RedisSemaphore(WardenRuntime runtime, SyncKeys keys) {
    this.runtime = runtime;
    this.keys = keys;
  }

  @Override
  public boolean trySetPermits(int permits) {
    Args.notNegative("permits", permits);
    return change("set", permits, "trySetPermits") == 1;
  }

  @Override
  public void addPermits(int delta) {
    if (delta != 0) {
      add("delta", delta, "addPermits");
    }
  }

  @Override
  public int availablePermits() {
    String free =
        Futures.awaitUninterruptibly(
            runtime.redis().get(keys.key()).toCompletableFuture(),
            keys.describe(),
            "availablePermits");
    return free == null ? 0 : Integer.parseInt(free);
  }

  @Override
  public int drainPermits() {
    return (int) MutexCommands.number(changeReply("drain", 0, "drainPermits"), 1);
  }

  // ---- acquiring ----

  @Override
  public void acquire() throws InterruptedException {
    acquire(1);
  }

  @Override
  public void acquire(int permits) throws InterruptedException {
    checkPermits(permits);
    checkInterrupt();
    if (permits > 0) {
      Acquisitions.await(acquisition(permits, -1), keys.describe(), true);
    }
  }

  @Override
  public boolean tryAcquire() {
    return tryAcquire(1);
  }

  @Override
  public boolean tryAcquire(int permits) {
    checkPermits(permits);
    if (permits == 0) {
      return true;
    }
    try {
      return Acquisitions.await(acquisition(permits, 0), keys.describe(), false) != null;
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible acquisition was interrupted", e);
    }
  }

  @Override
  public boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
    return tryAcquire(1, timeout, unit);
  }

  @Override
  public boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException {
    checkPermits(permits);
    Args.unit(unit);
    checkInterrupt();
    if (permits == 0) {
      return true;
    }
    long waitNanos = Math.max(0, unit.toNanos(timeout)); // as Semaphore: <= 0 does not wait
    return Acquisitions.await(acquisition(permits, waitNanos), keys.describe(), true) != null;
  }

  private Acquisition<Integer> acquisition(int permits, long waitNanos) {
    return new Acquisition<>(runtime, new Claim(permits, waitNanos != 0), waitNanos).start();
  }

  /** One acquisition's claim on permits, for {@link Acquisition}. */
  private final class Claim implements Acquisition.Claim<Integer> {
    private final String waiterId = Ids.random128();
    private final int permits;
    private final boolean waits;
    private final String entry;
    private volatile boolean inDoubt;

    Claim(int permits, boolean waits) {
      this.permits = permits;
      this.waits = waits;
      this.entry = permits + ":" + waiterId;
    }

    @Override
    public String describe() {
      return keys.describe();
    }

    @Override
    public String channel() {
      return keys.channel();
    }

    @Override
    public String waiterId() {
      return waiterId;
    }

    @Override
    public CompletableFuture<Acquisition.Outcome<Integer>> attempt(boolean othersWait) {
      // othersWait does not matter here: a waiting attempt that fails queues itself, and a
      // release publishes whenever the queue is not empty
      return run(waits ? "wait" : "take", permits, entry, waiterId)
          .whenComplete(
              (reply, failure) -> {
                if (failure != null) {
                  inDoubt = true; // it may have run and taken the permits
                }
              })
          .thenApply(
              reply ->
                  MutexCommands.number(reply, 0) == 1
                      ? Acquisition.Outcome.granted(permits)
                      : Acquisition.Outcome.busy(QUEUE_HEARTBEAT_MILLIS));
    }

    @Override
    public CompletableFuture<?> rollback(Integer granted) {
      return leave();
    }

    @Override
    public void finished(boolean granted) {
      if (!granted && (waits || inDoubt)) {
        leave()
            .whenComplete(
                (reply, failure) -> {
                  if (failure != null && inDoubt) {
                    log.warn(
                        "{}: could not check whether an abandoned acquisition took {} permit(s);"
                            + " if it did, they stay taken",
                        keys.describe(),
                        permits,
                        failure);
                  }
                });
      }
    }

    /** Leaves the queue and gives back a grant this acquisition will not use, if there was one. */
    private CompletableFuture<List<Object>> leave() {
      return run("leave", 0, entry, waiterId);
    }
  }

  // ---- releasing ----

  @Override
  public void release() {
    release(1);
  }

  @Override
  public void release(int permits) {
    checkPermits(permits);
    if (permits > 0) {
      add("permits", permits, "release");
    }
  }

  private void add(String argument, int permits, String operation) {
    List<Object> reply = changeReply("add", permits, operation);
    if (MutexCommands.number(reply, 0) < 0) {
      throw new IllegalArgumentException(
          argument
              + " would take the free permits of "
              + keys.describe()
              + " (now "
              + MutexCommands.number(reply, 1)
              + ") beyond the int range: "
              + permits);
    }
  }

  // ---- script calls ----

  /** Applies a change from a caller thread, safely retried; returns the script's status. */
  private long change(String operation, long amount, String operationName) {
    return MutexCommands.number(changeReply(operation, amount, operationName), 0);
  }

  private List<Object> changeReply(String operation, long amount, String operationName) {
    String operationId = Ids.random128();
    return Futures.awaitRetrying(
        runtime,
        keys.describe(),
        operationName,
        () -> run(operation, amount, "", operationId),
        () -> {});
  }

  private CompletableFuture<List<Object>> run(
      String operation, long amount, String entry, String operationId) {
    return runtime
        .scripts()
        .run(
            Scripts.SEMAPHORE_UPDATE,
            new String[] {
              keys.key(), keys.key("queue"), keys.key("deadlines"), keys.operation(operationId)
            },
            operation,
            Long.toString(amount),
            entry,
            Long.toString(QUEUE_ENTRY_LEASE_MILLIS),
            Long.toString(runtime.operationMarkerMillis()),
            keys.channel());
  }

  private static void checkPermits(int permits) {
    Args.notNegative("permits", permits);
  }

  private void checkInterrupt() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(keys.describe() + ": interrupted before acquiring");
    }
  }

  @Override
  public String toString() {
    return "RedisSemaphore[" + keys.name() + "]";
  }
}
