package dev.warden.internal.wait;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parked waiters of one object that share their waiting: one re-check timer for all of them,
 * and, where the object keeps a queue with heartbeats, one heartbeat call for all of them. Exists
 * while one of them is parked, or is out re-checking for the line. Guarded by the topic's monitor.
 *
 * <p>Back-off: while the line keeps being refused, it re-checks less often. The first re-check
 * comes one recheck interval after the line starts; each re-check after that waits twice as long as
 * the one before, up to {@link #capNanos}: the larger of the recheck interval and {@link
 * #BACKOFF_CAP_NANOS} (1 s). The interval is back to the recheck interval whenever something
 * changes: a wake-up for the topic or for one of the line's waiters, a re-subscription, a local
 * hand-off ({@link Topic#claim}), or a new first waiter (a grant or departure of the one that
 * re-checked, or a newcomer in front). A parking waiter's shorter re-check (the holder's remaining
 * lease) still moves the timer earlier. So a wake-up lost after the line has waited a while is
 * found within the cap. While its first waiter stays parked for a local holder (see {@link #due})
 * the line asks nobody, and does not back off.
 *
 * <p>A line whose only waiter is out re-checking stays in its topic, empty, until its timer: the
 * waiter, refused, parks in it again and the back-off goes on; if it does not come back, the timer
 * finds the line empty and ends it.
 */
final class Line {
  private static final Logger log = LoggerFactory.getLogger(Line.class);

  /** The longest a line backs off to, unless the recheck interval is longer: 1 s. */
  static final long BACKOFF_CAP_NANOS = 1_000_000_000L;

  private final Topic topic;
  private final Timer timer;
  private final Clock clock;
  final String object;
  final SharedWait sharing;
  final Parked.Chain chain = new Parked.Chain(true);
  private final long baseNanos;
  private final long capNanos;
  private long intervalNanos; // the wait from one re-check to the next now
  private Waiter leader; // the first waiter the back-off runs for
  private Timer.Scheduled scheduled;
  private long scheduledAt;
  private long recheckAt;
  private long heartbeatAt;
  private boolean closed;

  /**
   * @param topic whose monitor guards the line, and whose waiters it holds
   * @param recheckNanos the recheck interval: the line's first re-check, and where it backs off
   *     from
   */
  Line(
      Topic topic, String object, SharedWait sharing, Timer timer, Clock clock, long recheckNanos) {
    this.topic = topic;
    this.timer = timer;
    this.clock = clock;
    this.object = object;
    this.sharing = sharing;
    this.baseNanos = recheckNanos;
    this.capNanos = Math.max(recheckNanos, BACKOFF_CAP_NANOS);
    this.intervalNanos = recheckNanos;
    long now = clock.nanoTime();
    this.recheckAt = now + recheckNanos;
    // its waiters have just asked Redis, which counts as their heartbeat
    this.heartbeatAt = now + sharing.heartbeatNanos();
    schedule();
  }

  /** The wait from one re-check to the next now (tests). */
  long intervalNanos() {
    return intervalNanos;
  }

  /**
   * Makes the line check again within {@code nanos} (a parking waiter's bound, e.g. the holder's
   * remaining lease) or its current interval, whichever is shorter, at the latest.
   */
  void recheckWithin(long nanos) {
    long at = clock.nanoTime() + Math.min(nanos, intervalNanos);
    if (at - recheckAt < 0) {
      recheckAt = at;
      schedule();
    }
  }

  /**
   * Something changed: the line re-checks at the recheck interval again, from now at the latest.
   */
  void reset() {
    intervalNanos = baseNanos;
    if (!closed && chain.first != null) {
      recheckWithin(baseNanos);
    }
  }

  /** A waiter parked in the line: if it is a new first waiter, the back-off starts again. */
  void parked(Parked.Entry entry) {
    if (chain.first == entry && entry.waiter != leader) {
      reset();
      leader = entry.waiter;
    }
  }

  /** (Re)schedules the timer at the next re-check or heartbeat, whichever comes first. */
  private void schedule() {
    long at = recheckAt;
    if (sharing.heartbeatNanos() > 0 && heartbeatAt - at < 0) {
      at = heartbeatAt;
    }
    if (scheduled != null) {
      if (scheduledAt == at) {
        return;
      }
      scheduled.cancel();
    }
    scheduledAt = at;
    try {
      scheduled = timer.schedule(this::due, Math.max(0, at - clock.nanoTime()));
    } catch (RejectedExecutionException closing) {
      scheduled = null; // the Warden is closing: its acquisitions are failed with it
    }
  }

  /** Its last waiter left: no timer, and no heartbeat; a waiter parking again makes a new line. */
  void close() {
    closed = true;
    if (scheduled != null) {
      scheduled.cancel();
      scheduled = null;
    }
  }

  /**
   * The timer fell due. If the re-check is due, the first waiter checks again and the line backs
   * off (or, if the first is not the one the back-off ran for, starts again from the recheck
   * interval). While another owner of this client holds the object the first waiter stays where it
   * is, parked: it would only be refused, and the holder's release hands over to it or wakes it
   * (taking it off here would let that release hand over to the second). If the heartbeat is due,
   * one call refreshes the entries of every waiter parked after that.
   */
  private void due() {
    Waiter first = null;
    List<Successor> beating = null;
    List<Waiter> beatingWaiters = null;
    synchronized (topic.monitor) {
      if (closed) {
        return;
      }
      scheduled = null;
      Parked.Entry entry = chain.first;
      if (entry == null) { // its last waiter went out to re-check and did not come back
        close();
        topic.removeLine(this);
        return;
      }
      long now = clock.nanoTime();
      if (now - recheckAt >= 0) {
        boolean local = entry.waiter.waitsForLocalHolder();
        if (entry.waiter == leader && !local) {
          intervalNanos = Math.min(capNanos, intervalNanos * 2);
        } else {
          // the one before it left (granted, or gone) while out re-checking; or it stays parked
          // for a local holder, asking nobody: no back-off, so that the end of that holder's
          // explicit lease (or its loss), which nothing publishes, is found as soon as before
          intervalNanos = baseNanos;
          leader = entry.waiter;
        }
        recheckAt = now + intervalNanos;
        if (!local) {
          topic.takeForRecheck(entry); // leaves the line open, even if empty
          first = entry.waiter;
        }
      }
      if (sharing.heartbeatNanos() > 0 && now - heartbeatAt >= 0) {
        heartbeatAt = now + sharing.heartbeatNanos();
        beating = new ArrayList<>();
        beatingWaiters = new ArrayList<>();
        for (Parked.Entry e = chain.first; e != null; e = e.lineNext) {
          beating.add(e.successor);
          beatingWaiters.add(e.waiter);
        }
      }
      schedule();
    }
    if (first != null) {
      first.recheck();
    }
    if (beating != null && !beating.isEmpty()) {
      heartbeat(beating, beatingWaiters);
    }
  }

  // FutureReturnValueIgnored: the whenComplete callback handles the outcome
  @SuppressWarnings("FutureReturnValueIgnored")
  private void heartbeat(List<Successor> beating, List<Waiter> waiters) {
    CompletableFuture<List<Integer>> sent;
    try {
      sent = sharing.heartbeat(beating);
    } catch (RuntimeException e) {
      log.warn("{}: heartbeat of {} waiters not sent: {}", object, beating.size(), e.toString());
      return;
    }
    sent.whenComplete(
        (gone, failure) -> {
          if (failure != null) {
            // each waiter's own attempts say more; a waiter dropped meanwhile rejoins at its
            // place with its next attempt
            log.warn(
                "{}: heartbeat of {} waiters failed: {}",
                object,
                beating.size(),
                failure.toString());
            return;
          }
          for (int index : gone) {
            Waiter waiter = waiters.get(index);
            if (topic.unpark(waiter)) {
              waiter.wake(); // no longer queued in Redis: it asks, and takes its place again
            }
          }
        });
  }
}
