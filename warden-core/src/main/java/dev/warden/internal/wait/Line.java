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
 * while one of them is parked. Guarded by the topic's monitor.
 */
final class Line {
  private static final Logger log = LoggerFactory.getLogger(Line.class);

  private final Topic topic;
  private final Timer timer;
  private final Clock clock;
  final String object;
  final SharedWait sharing;
  final Parked.Chain chain = new Parked.Chain(true);
  private final long periodNanos;
  private Timer.Scheduled recheck;
  private long recheckAt;
  private long heartbeatAt;
  private boolean closed;

  /**
   * @param topic whose monitor guards the line, and whose waiters it holds
   * @param recheckNanos the longest the line waits before its first waiter checks again
   */
  Line(
      Topic topic, String object, SharedWait sharing, Timer timer, Clock clock, long recheckNanos) {
    this.topic = topic;
    this.timer = timer;
    this.clock = clock;
    this.object = object;
    this.sharing = sharing;
    long heartbeat = sharing.heartbeatNanos();
    this.periodNanos = heartbeat > 0 ? Math.min(recheckNanos, heartbeat) : recheckNanos;
    // its waiters have just asked Redis, which counts as their heartbeat
    this.heartbeatAt = clock.nanoTime() + heartbeat;
  }

  /** Makes the line check again within {@code nanos} at the latest. */
  void recheckWithin(long nanos) {
    long at = clock.nanoTime() + Math.min(nanos, periodNanos);
    if (recheck != null && recheckAt - at <= 0) {
      return;
    }
    if (recheck != null) {
      recheck.cancel();
    }
    schedule(at);
  }

  private void schedule(long at) {
    recheckAt = at;
    try {
      recheck = timer.schedule(this::due, at - clock.nanoTime());
    } catch (RejectedExecutionException closing) {
      recheck = null; // the Warden is closing: its acquisitions are failed with it
    }
  }

  /** Its last waiter left: no timer, and no heartbeat; a waiter parking again makes a new line. */
  void close() {
    closed = true;
    if (recheck != null) {
      recheck.cancel();
      recheck = null;
    }
  }

  /**
   * The timer fell due: the first waiter checks again, the line waits one period more. While
   * another owner of this client holds the object the first waiter stays where it is, parked: it
   * would only be refused, and the holder's release hands over to it or wakes it (taking it off
   * here would let that release hand over to the second).
   */
  private void due() {
    Waiter first = null;
    List<Successor> beating = null;
    List<Waiter> beatingWaiters = null;
    synchronized (topic.monitor) {
      if (closed) {
        return;
      }
      recheck = null;
      Parked.Entry entry = chain.first;
      if (entry == null) {
        return;
      }
      long now = clock.nanoTime();
      if (!entry.waiter.waitsForLocalHolder()) {
        topic.remove(entry); // may close the line
        first = entry.waiter;
      }
      if (!closed) {
        schedule(now + periodNanos);
        if (sharing.heartbeatNanos() > 0 && now - heartbeatAt >= 0) {
          heartbeatAt = now + sharing.heartbeatNanos();
          beating = new ArrayList<>();
          beatingWaiters = new ArrayList<>();
          for (Parked.Entry e = chain.first; e != null; e = e.lineNext) {
            beating.add(e.successor);
            beatingWaiters.add(e.waiter);
          }
        }
      }
    }
    if (first != null) {
      first.recheck();
    }
    if (beating != null) {
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
