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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * round; the reply names only the holds not renewed (usually none).
 *
 * <p>A tick's work is O(batches), not O(holds): holds are kept, as they are added, in batches per
 * renewal script and shard (one call touches one cluster slot), filled in order, every batch but
 * the group's last full. Adding appends to the last batch; removing moves the last hold of the
 * group into the freed place: both O(1), under the group's monitor. Each batch keeps its call ready
 * (the holds it renews, its arguments, and the earliest local lease deadline and maximum hold time
 * among them), rebuilt by the tick only when its holds changed since (O(its holds), only for
 * batches that changed). A tick sends each ready call as it is, unless one of its holds' local
 * deadline has passed or its maximum hold time is less than a lease away: such a batch is gone
 * through hold by hold, as every batch was before. A successful reply raises the batch's earliest
 * deadline to the renewal's (each hold's deadline moved to at least that). The replies, on the
 * event loop, still go through their holds one by one (to extend each hold's deadline and report
 * each renewal).
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
 * later than that, and ends it in Redis by its token, as a hold lost by its deadline is.
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
  private final long leaseNanos;

  /** The holds kept, by renewal script and shard; empty groups are removed. */
  private final Map<HoldGroup.Key, HoldGroup> groups = new ConcurrentHashMap<>();

  /** How many holds are kept, counted after they enter their group and before they leave it. */
  private final AtomicInteger kept = new AtomicInteger();

  /**
   * Holds gone through one by one by ticks so far, to make a changed batch's call or to renew a
   * batch hold by hold (tests: the per-hold work of the ticks).
   */
  private final AtomicLong visited = new AtomicLong();

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
    this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
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
    // encoded before the hold enters its group, whose monitor publishes the bytes to the timer
    hold.encodeRenewal();
    byte[] routingKey = hold.renewalKeys()[0];
    HoldGroup.Key key = new HoldGroup.Key(hold.renewal().script(), redis.shardOf(routingKey));
    boolean added;
    while (true) {
      HoldGroup group = groups.computeIfAbsent(key, HoldGroup::new);
      synchronized (group) {
        if (group.retired) {
          continue; // emptied and removed meanwhile: join its successor
        }
        hold.keeperGroup = group;
        added = group.add(hold);
      }
      break;
    }
    if (added) {
      kept.incrementAndGet();
      if (hold.state() == Hold.State.LOST) {
        // lost while its owner had it out (the keeper's lose() found it not kept), then put back
        // by its owner (a failed lease call): nothing renews a lost hold. Read after it entered
        // its group, so a loss marked later finds it kept and removes it itself.
        remove(hold);
        return;
      }
    }
    if (!ticking) {
      start();
    }
  }

  private synchronized void start() {
    if (stopped) {
      clear(); // added while the Warden closed: nothing renews it any more
      return;
    }
    if (ticker == null) {
      ticker = timer.scheduleAtFixedRate(this::tick, periodNanos);
    }
    ticking = true;
  }

  /** Stops renewing the hold. The ticker runs on until a tick finds no hold at all. */
  public void remove(Hold hold) {
    boolean removed;
    while (true) {
      if (!(hold.keeperGroup instanceof HoldGroup group)) {
        return; // never kept
      }
      synchronized (group) {
        if (hold.keeperGroup != group) {
          // taken out and added again meanwhile (e.g. the keeper losing it while its owner's
          // lease call failed), into a new group as this one was emptied: remove it from that
          continue;
        }
        removed = group.remove(hold);
        if (removed && group.batches.isEmpty()) {
          group.retired = true;
          groups.remove(group.key, group);
        }
      }
      break;
    }
    if (removed) {
      kept.decrementAndGet();
    }
  }

  /** Whether the hold is kept now. */
  private static boolean isKept(Hold hold) {
    while (true) {
      if (!(hold.keeperGroup instanceof HoldGroup group)) {
        return false;
      }
      synchronized (group) {
        if (hold.keeperGroup == group) { // else moved to a new group meanwhile: look there
          return hold.keptIn != null;
        }
      }
    }
  }

  /** Stops renewing a hold that stays held: its lease now simply runs out unless set again. */
  public void stopRenewing(Hold hold) {
    remove(hold);
    hold.renewed(false);
  }

  /** Whether the ticker is scheduled: true while holds are renewed, and up to a period after. */
  public synchronized boolean isRunning() {
    return ticker != null;
  }

  /** Returns the number of holds renewed now. */
  public int size() {
    return kept.get();
  }

  /** Returns how many holds ticks have gone through one by one so far (tests). */
  long holdsVisited() {
    return visited.get();
  }

  /** Renews everything now, e.g. after the connection came back, to learn of lost holds early. */
  public void renewNow() {
    synchronized (this) {
      if (stopped || kept.get() == 0) {
        return;
      }
    }
    timer.execute(this::renewAll);
  }

  /**
   * Renews one hold now, on its own, as a tick would (its reply extends the hold's deadline, or
   * reports it lost): a direct grant's confirmation, whose lease in Redis is the short grant lease
   * until this lands. The hold stays in its batch for the ticks that follow.
   */
  public void renewNow(Hold hold) {
    long lease = leaseMillis;
    if (maxHoldNanos > 0) {
      long left = hold.startedNanos() + maxHoldNanos - clock.nanoTime();
      lease = Math.max(1, Math.min(lease, millisUntil(left)));
    }
    Batch batch = new Batch(hold.renewal().script(), lease);
    batch.add(hold);
    renew(batch);
  }

  /** Stops renewing for good (the Warden closes). */
  public synchronized void stop() {
    stopped = true;
    ticking = false; // an add() racing with the close takes the slow path, which drops the hold
    clear();
    if (ticker != null) {
      ticker.cancel();
      ticker = null;
    }
  }

  /** Forgets every hold (the keeper stops). */
  private void clear() {
    for (Iterator<HoldGroup> it = groups.values().iterator(); it.hasNext(); ) {
      HoldGroup group = it.next();
      it.remove();
      int removed;
      synchronized (group) {
        removed = group.clear();
        group.retired = true;
      }
      kept.addAndGet(-removed);
    }
  }

  private void tick() {
    if (kept.get() == 0 && stopIfIdle()) {
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
    if (kept.get() != 0) {
      ticking = true;
      return false;
    }
    ticker.cancel();
    ticker = null;
    return true;
  }

  private void renewAll() {
    long now = clock.nanoTime();
    List<Batch> ready = new ArrayList<>();
    List<Hold> oneByOne = new ArrayList<>();
    for (HoldGroup group : groups.values()) {
      synchronized (group) {
        for (HoldGroup.Kept batch : group.batches) {
          if (batch.changed) {
            visited.addAndGet(batch.size); // its call is made again
          }
          Batch call = batch.ready(now, leaseMillis, maxHoldNanos);
          if (now - call.earliestDeadline.get() >= 0
              || (maxHoldNanos > 0 && call.earliestLimit - now < leaseNanos)) {
            // a local deadline passed, or a maximum hold time is near: hold by hold; its call is
            // made again next time, from the deadlines the renewals set meanwhile
            oneByOne.addAll(Arrays.asList(call.holds).subList(0, call.size));
            batch.changed = true;
          } else {
            ready.add(call);
          }
        }
      }
    }
    for (Batch call : ready) {
      renew(call);
    }
    if (!oneByOne.isEmpty()) {
      visited.addAndGet(oneByOne.size());
      renewOneByOne(oneByOne, now);
    }
  }

  /** Renews these holds as every hold was renewed before batches were kept: each looked at. */
  private void renewOneByOne(List<Hold> holds, long now) {
    // one batch being filled per renewal script (lock types differ in what a renewal touches),
    // shard (one call touches one cluster slot) and lease
    Map<BatchKey, Batch> filling = new HashMap<>(4);
    for (Hold hold : holds) {
      long lease = leaseMillis;
      if (maxHoldNanos > 0) {
        long left = hold.startedNanos() + maxHoldNanos - now;
        if (left <= 0) {
          loseByDeadline(hold, now, "no renewal succeeded before the lease's deadline");
          continue;
        }
        if (left < leaseNanos) {
          // the last renewals before the limit: the lease ends at the limit, not later
          lease = Math.max(1, millisUntil(left));
          timeLimit(hold, left);
        }
      }
      if (now - hold.leaseDeadlineNanos() >= 0) {
        loseByDeadline(hold, now, "no renewal succeeded before the lease's deadline");
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
              if (isKept(hold)) {
                loseByDeadline(
                    hold, clock.nanoTime(), "no renewal succeeded before the lease's deadline");
              }
            },
            leftNanos);
      }
    }
  }

  /**
   * The lease, in whole ms, of a last renewal {@code leftNanos} before the maximum hold time:
   * rounded up, so that Redis never lets the hold go before its holder's limit (a lease rounded
   * down ended up to a millisecond early, and a renewal arriving in that millisecond found the lock
   * gone and reported it lost for another reason than the limit).
   */
  private static long millisUntil(long leftNanos) {
    long millis = TimeUnit.NANOSECONDS.toMillis(leftNanos);
    return TimeUnit.MILLISECONDS.toNanos(millis) < leftNanos ? millis + 1 : millis;
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
        batch.args != null
            ? batch.args // made once, and never changed after: safe to send again
            : new CommandArgs<>(StringCodec.UTF8)
                .addAll(batch.keys)
                .add(lease)
                .addAll(batch.owners);
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
    // every hold of it is renewed until at least then, or lost and soon out of its batch
    batch.earliestDeadline.accumulateAndGet(
        deadlineNanos, (was, renewed) -> renewed - was > 0 ? renewed : was);
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
        } else if (hold.endedByLimit(maxHoldNanos, periodNanos, clock.nanoTime())) {
          // its last lease ended at the limit (it was renewed until then, not later): a renewal
          // answered after it finds the lock gone because the limit was reached, even when the
          // limit's own timer task runs late (a busy timer thread). Not so for a hold whose lease
          // deadline came a period or more before the limit (Hold.endedByLimit)
          lose(hold, limitReason, WardenListener.LossReason.MAX_HOLD_TIME);
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
        loseByDeadline(
            hold,
            now,
            "renewal impossible until the lease's deadline: " + Failures.unwrap(failure));
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

  /**
   * Loses a hold whose lease deadline passed with no renewal answered, or whose maximum hold time
   * is reached at {@code now}, and ends it in Redis by its token ({@link Hold#markLostByDeadline}):
   * renewals that reach Redis late cannot keep it for nobody, nor can a re-entry in the last
   * renewal period before the limit, which set a whole lease again (no renewal came after it to
   * bring it back to the limit). Lost to its limit ({@link
   * WardenListener.LossReason#MAX_HOLD_TIME}) if the limit ended it ({@link Hold#endedByLimit}): so
   * also when a late timer task leaves a failed renewal's reply to find it; else for {@code
   * reason}.
   */
  private void loseByDeadline(Hold hold, long now, String reason) {
    boolean limit = hold.endedByLimit(maxHoldNanos, periodNanos, now);
    String why = limit ? limitReason : reason;
    if (hold.markLostByDeadline(
        why,
        limit ? WardenListener.LossReason.MAX_HOLD_TIME : WardenListener.LossReason.EXPIRED,
        callbacks)) {
      logLost(hold, why);
      remove(hold);
    }
  }

  private void logLost(Hold hold, String reason) {
    log.warn(
        "{} lost its hold (owner {}, token {}): {}",
        hold.object(),
        hold.owner(),
        hold.token(),
        reason);
  }

  private void lose(Hold hold, String reason, WardenListener.LossReason kind) {
    if (hold.markLost(reason, kind, callbacks)) {
      logLost(hold, reason);
      remove(hold);
    }
    // a hold being released is left to its release, which knows better
  }
}
