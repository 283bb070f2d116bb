package dev.warden.internal.sync;

import dev.warden.DistributedSemaphore;
import dev.warden.internal.base.Args;
import dev.warden.internal.base.Ids;
import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.Acquisition;
import dev.warden.internal.wait.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
 * {@link Settings#SEMAPHORE_HEARTBEAT_MILLIS}; an entry not refreshed for {@link
 * Settings#SEMAPHORE_ENTRY_LEASE_MILLIS} (its process died, or lost Redis) lapses, and each script
 * drops at most ten lapsed entries. So a crashed waiter holds up the others for about two seconds
 * at most.
 *
 * <p><b>Retries.</b> Every change carries an operation id; the script leaves a marker under it for
 * a little longer than the call may be retried, so a call sent again after a lost reply changes
 * nothing. An acquisition that ends without using a grant (cancelled, timed out, or failed after a
 * lost reply) gives it back by its marker.
 */
final class RedisSemaphore implements DistributedSemaphore {

  private final SyncKeys keys;
  private final SyncCalls calls;

  RedisSemaphore(SyncContext context, SyncKeys keys) {
    this.keys = keys;
    this.calls = new SyncCalls(context, keys);
  }

  @Override
  public boolean trySetPermits(int permits) {
    Args.notNegative("permits", permits);
    return Scripts.number(change("set", permits, "trySetPermits"), 0) == 1;
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
        calls.query(
            calls.context().scripts().redis().command(keys.key(), r -> r.get(keys.key())),
            "availablePermits");
    return free == null ? 0 : Integer.parseInt(free);
  }

  @Override
  public int drainPermits() {
    return (int) Scripts.number(change("drain", 0, "drainPermits"), 1);
  }

  // ---- acquiring ----

  @Override
  public void acquire() throws InterruptedException {
    acquire(1);
  }

  @Override
  public void acquire(int permits) throws InterruptedException {
    checkPermits(permits);
    if (permits == 0) {
      calls.checkInterrupt();
      return;
    }
    calls.await(new Permits(permits, true), -1);
  }

  @Override
  public boolean tryAcquire() {
    return tryAcquire(1);
  }

  @Override
  public boolean tryAcquire(int permits) {
    checkPermits(permits);
    return permits == 0 || calls.tryOnce(new Permits(permits, false)) != null;
  }

  @Override
  public boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
    return tryAcquire(1, timeout, unit);
  }

  @Override
  public boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException {
    checkPermits(permits);
    long waitNanos = Math.max(0, Args.unit(unit).toNanos(timeout)); // as Semaphore: <= 0: no wait
    if (permits == 0) {
      calls.checkInterrupt();
      return true;
    }
    return calls.await(new Permits(permits, waitNanos > 0), waitNanos) != null;
  }

  /** One acquisition's claim on permits, for {@link Acquisition}. */
  private final class Permits extends SyncCalls.Claim<Integer> {
    private final String waiterId = Ids.random128();
    private final int permits;
    private final boolean waits;
    private final String entry;

    Permits(int permits, boolean waits) {
      super(keys);
      this.permits = permits;
      this.waits = waits;
      this.entry = permits + ":" + waiterId;
    }

    @Override
    public String waiterId() {
      return waiterId;
    }

    @Override
    public CompletableFuture<Outcome<Integer>> attempt(boolean othersWait) {
      // othersWait does not matter here: a waiting attempt that fails queues itself, and a
      // release publishes whenever the queue is not empty
      return run(waits ? "wait" : "take", permits, entry, keys.operation(waiterId))
          .thenApply(
              reply ->
                  Scripts.number(reply, 0) == 1
                      ? Outcome.granted(permits)
                      : Outcome.busy(Settings.SEMAPHORE_HEARTBEAT_MILLIS));
    }

    @Override
    public CompletableFuture<?> rollback(Integer granted) {
      return leaveQueue();
    }

    /** Leaving also gives back what an attempt took under this acquisition's marker. */
    @Override
    public CompletableFuture<?> giveBackInDoubt() {
      return leaveQueue();
    }

    @Override
    public void finished(boolean granted) {
      if (!granted && waits) {
        var unused = leaveQueue(); // a queue the waiter joined must not keep it
      }
    }

    /** Leaves the queue and gives back a grant this acquisition will not use, if there was one. */
    private CompletableFuture<List<Object>> leaveQueue() {
      return run("leave", 0, entry, keys.operation(waiterId));
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
    List<Object> reply = change("add", permits, operation);
    if (Scripts.number(reply, 0) < 0) {
      throw calls.beyondIntRange(argument, Scripts.number(reply, 1), permits);
    }
  }

  // ---- script calls ----

  /** Applies a change from a caller thread, retried safely. */
  private List<Object> change(String operation, long amount, String operationName) {
    return calls.change(operationName, marker -> run(operation, amount, "", marker));
  }

  private CompletableFuture<List<Object>> run(
      String operation, long amount, String entry, String marker) {
    return calls.run(
        SyncScripts.SEMAPHORE_UPDATE,
        new String[] {keys.key(), keys.key("queue"), keys.key("deadlines"), marker},
        operation,
        Long.toString(amount),
        entry,
        Long.toString(Settings.SEMAPHORE_ENTRY_LEASE_MILLIS),
        calls.markerMillis(),
        keys.channel(),
        calls.idleMillis());
  }

  private static void checkPermits(int permits) {
    Args.notNegative("permits", permits);
  }

  @Override
  public String toString() {
    return "RedisSemaphore[" + keys.name() + "]";
  }
}
