package dev.warden.internal.lease;

import dev.warden.WardenListener;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.Failures;
import dev.warden.internal.redis.Script;
import dev.warden.internal.redis.Scripts;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog: renews every hold taken without an explicit lease, every third of the lease, in
 * batched script calls, and finds out which holds were lost.
 *
 * <p>One ticker per Warden, on the Warden's timer thread, at a fixed rate of a third of the lease.
 * The first hold added to an idle keeper starts it; a tick that finds no hold to renew stops it, so
 * an idle Warden goes quiet within one period. Removing a hold only takes it out of the set: a
 * thread that takes and releases a lock in a loop neither schedules nor cancels a timer task, and
 * never wakes the timer thread. A tick only sends asynchronous script calls; replies are handled on
 * a Lettuce event-loop thread.
 *
 * <p>Cost per round: one script call per {@link Settings#RENEWAL_BATCH} holds, two Redis commands
 * per hold (the ownership check and the expiry). Each hold's keys and owner are encoded once, when
 * it is added (on the caller's thread, well under a microsecond), and sent as those bytes by every
 * round; the reply names only the holds not renewed (usually none). So a round encodes no string
 * and parses no per-hold reply, and its one loop over every hold stays small (it is also what the
 * JIT must compile before a keeper with many holds runs at full speed).
 *
 * <p>A hold is lost when a renewal finds it gone or owned by another, or when no renewal succeeded
 * before its local lease deadline (the send time of its last successful renewal plus the lease, on
 * the monotonic clock: never later than Redis's own expiry). Then {@link Hold#lost()} completes and
 * the hold leaves the keeper.
 *
 * <p>With a maximum hold time ({@link Settings#maxHoldNanos()}), a hold is renewed only until that
 * long after it was taken: the last renewal before the limit sets its lease to end at the limit
 * (not a whole lease later), and a timer at the limit marks it lost ({@link
 * WardenListener.LossReason#MAX_HOLD_TIME}), so its holder is told when Redis lets it go, and not
 * later than that.
 */
public final class LeaseKeeper {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  private final Scripts scripts;
  private final Deployment redis;
  private final Timer timer;
  private final Clock clock;
  private final Executor callbacks;
  private final long leaseMillis;
  private final long periodNanos;
  private final long maxHoldNanos; // 0: none
  private final String limitReason;
  private final Set<Hold> holds = ConcurrentHashMap.newKeySet();

  /**
   * Whether the ticker is scheduled, read without the monitor by {@link #add}; written under it.
   * With the set it forms a handshake (see {@link #stopIfIdle}): a hold is never added to a keeper
   * whose ticker is about to stop without either the adder or the tick noticing.
   */
  private volatile boolean ticking;

  private Timer.Scheduled ticker; // guarded by this
  private boolean stopped; // guarded by this

  /**
   * @param callbacks completes the futures users see ({@link Hold#lost()})
   */
  public LeaseKeeper(
      Scripts scripts, Timer timer, Clock clock, Executor callbacks, Settings settings) {
    this.scripts = scripts;
    this.redis = scripts.redis();
    this.timer = timer;
    this.clock = clock;
    this.callbacks = callbacks;
    this.leaseMillis = settings.watchdogLeaseMillis();
    this.periodNanos = settings.renewalPeriodNanos();
    this.maxHoldNanos = settings.maxHoldNanos();
    this.limitReason =
        "it was held for its maximum hold time ("
            + Duration.ofNanos(maxHoldNanos)
            + "): the lease keeper stopped renewing it, and it expired then";
  }

  /** The lease of the holds this keeper renews, in ms. */
  public long leaseMillis() {
    return leaseMillis;
  }

  /** Renews the hold from now on; starts the ticker if it was idle. */
  public void add(Hold hold) {
    hold.renewed(true);
    // encoded before the hold enters the set, which publishes the bytes to the timer thread
    hold.encodeRenewal();
    holds.add(hold);
    if (!ticking) {
      start();
    }
  }

  private synchronized void start() {
    if (stopped) {
      holds.clear(); // added while the Warden closed: nothing renews it any more
      return;
    }
    if (ticker == null) {
      ticker = timer.scheduleAtFixedRate(this::tick, periodNanos);
    }
    ticking = true;
  }

  /** Stops renewing the hold. The ticker runs on until a tick finds no hold at all. */
  public void remove(Hold hold) {
    holds.remove(hold);
  }

  /** Stops renewing a hold that stays held: its lease now simply runs out unless set again. */
  public void stopRenewing(Hold hold) {
    holds.remove(hold);
    hold.renewed(false);
  }

  /** Whether the ticker is scheduled: true while holds are renewed, and up to a period after. */
  public synchronized boolean isRunning() {
    return ticker != null;
  }

  /** Returns the number of holds renewed now. */
  public int size() {
    return holds.size();
  }

  /** Renews everything now, e.g. after the connection came back, to learn of lost holds early. */
  public void renewNow() {
    synchronized (this) {
      if (stopped || holds.isEmpty()) {
        return;
      }
    }
    timer.execute(this::renewAll);
  }

  /** Stops renewing for good (the Warden closes). */
  public synchronized void stop() {
    stopped = true;
    ticking = false; // an add() racing with the close takes the slow path, which drops the hold
    holds.clear();
    if (ticker != null) {
      ticker.cancel();
      ticker = null;
    }
  }

  private void tick() {
    if (holds.isEmpty() && stopIfIdle()) {
      return;
    }
    try {
      renewAll();
    } catch (RuntimeException e) {
      // a periodic task that throws is never run again, and this one would still look scheduled
      log.error("lease renewal round failed; trying again at the next tick", e);
    }
  }

  /**
   * Cancels the ticker unless a hold arrived meanwhile. {@code ticking} is cleared before the set
   * is looked at again, while {@link #add} puts its hold in the set before it reads {@code
   * ticking}: so either this sees the new hold, or the adder sees {@code false} and waits here for
   * the monitor, then schedules a new ticker.
   */
  private synchronized boolean stopIfIdle() {
    if (ticker == null) {
      return true; // stopped meanwhile
    }
    ticking = false;
    if (!holds.isEmpty()) {
      ticking = true;
      return false;
    }
    ticker.cancel();
    ticker = null;
    return true;
  }

  private void renewAll() {
    long now = clock.nanoTime();
    // one batch being filled per renewal script (lock types differ in what a renewal touches) and
    // shard (one call touches one cluster slot)
    Map<BatchKey, Batch> filling = new HashMap<>(4);
    for (Hold hold : holds) {
      long lease = leaseMillis;
      if (maxHoldNanos > 0) {
        long left = hold.startedNanos() + maxHoldNanos - now;
        if (left <= 0) {
          lose(hold, limitReason, WardenListener.LossReason.MAX_HOLD_TIME);
          continue;
        }
        if (left < TimeUnit.MILLISECONDS.toNanos(leaseMillis)) {
          // the last renewals before the limit: the lease ends at the limit, not later
          lease = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
          timeLimit(hold, left);
        }
      }
      if (now - hold.leaseDeadlineNanos() >= 0) {
        lose(hold, "no renewal succeeded before the lease's deadline");
        continue;
      }
      byte[] routingKey = hold.renewalKeys()[0];
      BatchKey key = new BatchKey(hold.renewal().script(), redis.shardOf(routingKey), lease);
      Batch batch = filling.computeIfAbsent(key, k -> new Batch(k.script(), k.leaseMillis()));
      batch.add(hold);
      if (batch.size == Settings.RENEWAL_BATCH) {
        filling.remove(key);
        renew(batch);
      }
    }
    for (Batch batch : filling.values()) {
      renew(batch);
    }
  }

  /**
   * Marks the hold lost at its maximum hold time, {@code leftNanos} from now, unless released
   * before: its last renewal made its lease end then. Timed once per hold; on the timer thread.
   */
  private void timeLimit(Hold hold, long leftNanos) {
    if (hold.limitTimed()) {
      return;
    }
    hold.limitTimed(true);
    synchronized (this) {
      if (!stopped) {
        timer.schedule(
            () -> {
              if (holds.contains(hold)) {
                lose(hold, limitReason, WardenListener.LossReason.MAX_HOLD_TIME);
              }
            },
            leftNanos);
      }
    }
  }

  /** What the holds of one batch share: their renewal script, their shard and their lease. */
  private record BatchKey(Script script, int shard, long leaseMillis) {}

  /**
   * Sends one batch. Each hold's keys and owner go out as the bytes encoded when it was added, and
   * the reply lists only the holds not renewed (usually none).
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; the copy it returns
  // has nothing more to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  private void renew(Batch batch) {
    long sentAt = clock.nanoTime();
    long lease = batch.leaseMillis;
    CommandArgs<String, String> keysAndArgs =
        new CommandArgs<>(StringCodec.UTF8).addAll(batch.keys).add(lease).addAll(batch.owners);
    scripts
        .runEncoded(batch.script, batch.routingKey, batch.keyCount, keysAndArgs)
        .whenComplete(
            (notRenewed, failure) -> {
              if (failure != null) {
                renewalFailed(batch, failure);
              } else {
                renewed(batch, notRenewed, sentAt + TimeUnit.MILLISECONDS.toNanos(lease));
              }
            });
  }

  /** Handles a batch's reply: the (1-based, ascending) indices of the holds not renewed. */
  private void renewed(Batch batch, List<Long> notRenewed, long deadlineNanos) {
    int next = 0;
    for (int i = 0; i < batch.size; i++) {
      Hold hold = batch.holds[i];
      if (next < notRenewed.size() && notRenewed.get(next).longValue() == i + 1) {
        next++;
        if (hold.releaseInDoubt() && hold.count() == 1) {
          // Its owner's release of the last hold failed in doubt (e.g. timed out in a partition):
          // the hold may be gone because that release ran, or lost before it. Only the release
          // can tell (a run of it finds its own marker, or none: LockCore.release), so the keeper
          // neither reports it lost nor forgets it; it only stops renewing it.
          remove(hold);
        } else {
          lose(hold, "the lock expired, was force-unlocked, or was lost with Redis data");
        }
      } else {
        hold.extendLeaseDeadline(deadlineNanos);
        hold.reportRenewed();
      }
    }
  }

  private void renewalFailed(Batch batch, Throwable failure) {
    long now = clock.nanoTime();
    long earliest = Long.MAX_VALUE;
    for (int i = 0; i < batch.size; i++) {
      Hold hold = batch.holds[i];
      long left = hold.leaseDeadlineNanos() - now;
      if (left <= 0) {
        lose(hold, "renewal impossible until the lease's deadline: " + Failures.unwrap(failure));
      } else {
        earliest = Math.min(earliest, left);
      }
    }
    log.warn(
        "lease renewal of {} holds failed; retrying: {}",
        batch.size,
        Failures.unwrap(failure).toString());
    if (earliest != Long.MAX_VALUE) {
      // try once more at the earliest deadline, so a lost lease is reported on time
      synchronized (this) {
        if (!stopped) {
          timer.schedule(this::renewAll, earliest);
        }
      }
    }
  }

  private void lose(Hold hold, String reason) {
    lose(hold, reason, WardenListener.LossReason.EXPIRED);
  }

  private void lose(Hold hold, String reason, WardenListener.LossReason kind) {
    if (hold.markLost(reason, kind, callbacks)) {
      log.warn(
          "{} lost its hold (owner {}, token {}): {}",
          hold.object(),
          hold.owner(),
          hold.token(),
          reason);
      remove(hold);
    }
    // a hold being released is left to its release, which knows better
  }

  /**
   * Up to {@link Settings#RENEWAL_BATCH} holds renewed by one call of their script, with their keys
   * and owners as the script takes them.
   */
  private static final class Batch {
    final Script script;
    final long leaseMillis;
    final Hold[] holds = new Hold[Settings.RENEWAL_BATCH];
    final CommandArgs<String, String> keys = new CommandArgs<>(StringCodec.UTF8);
    final CommandArgs<String, String> owners = new CommandArgs<>(StringCodec.UTF8);
    int size;
    int keyCount;
    byte[] routingKey;

    Batch(Script script, long leaseMillis) {
      this.script = script;
      this.leaseMillis = leaseMillis;
    }

    void add(Hold hold) {
      holds[size++] = hold;
      if (routingKey == null) {
        routingKey = hold.renewalKeys()[0];
      }
      for (byte[] key : hold.renewalKeys()) {
        keys.add(key);
        keyCount++;
      }
      owners.add(hold.renewalOwner());
    }
  }
}
