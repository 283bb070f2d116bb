package dev.warden.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * W6: two threads ping-pong one lock, each through a lock object of its own. The holder lets the
 * other thread ask for the lock, keeps it for {@link #HOLD} (long enough for the other thread to be
 * waiting inside lock()), releases it and stamps the moment unlock() returned; the waiter, once its
 * lock() returns, takes that stamp. Measures the hand-off: from unlock() returning to the waiter's
 * lock() returning. A waiter that returns before unlock() does counts as an early hand-off (0 us).
 *
 * <p>A thread asks for the lock again only after the other has taken it: otherwise the releaser
 * could take the lock straight back (both libraries allow barging) and the ping-pong would stop.
 */
final class W6HandOff implements Workload {
  static final Metric HANDOFF_P50 =
      Metric.lower("handoff_p50_us", "hand-off p50", Metric.Unit.MICROS).inChart();

  /** How long a holder keeps the lock, so the other thread is parked in lock() when it is freed. */
  static final Duration HOLD = Duration.ofMillis(5);

  @Override
  public String id() {
    return "W6";
  }

  @Override
  public String title() {
    return "hand-off: two threads ping-pong one lock; unlock() returning to the waiter's lock() returning";
  }

  @Override
  public List<Point> points(Settings settings) {
    return List.of(
        new Point(
            "2 threads",
            Map.of("threads", 2, "hold_ms", HOLD.toMillis()),
            Optional.empty(),
            settings.warmUp(),
            settings.window(),
            settings.rounds(),
            W6HandOff::start));
  }

  /** One thread's mailbox: the other's release stamps, and its permission to ask for the lock. */
  private static final class Mailbox {
    final BlockingQueue<Long> releasedAt = new LinkedBlockingQueue<>();
    final Semaphore mayAsk = new Semaphore(0);
  }

  // LockNotBeforeTry: the hold spans the hand-off protocol below; a failure ends the trial
  @SuppressWarnings("LockNotBeforeTry")
  private static Trial start(Contender contender, String prefix) {
    Lock[] locks = {contender.lock(prefix), contender.lock(prefix)};
    Mailbox[] mailboxes = {new Mailbox(), new Mailbox()};
    mailboxes[0].mayAsk.release(); // thread 0 takes the lock first, unmeasured
    return Workers.start(
        "w6",
        2,
        index ->
            worker -> {
              Lock lock = locks[index];
              Mailbox mine = mailboxes[index];
              Mailbox theirs = mailboxes[1 - index];
              Tally tally = worker.tally();
              boolean first = index == 0;
              while (worker.running()) {
                if (!mine.mayAsk.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                  continue; // re-check running(): the other thread may have stopped or failed
                }
                lock.lock();
                long acquired = System.nanoTime();
                if (!first) {
                  Long released = null; // put right after the other's unlock(): waits only briefly
                  while (released == null && worker.running()) {
                    released = mine.releasedAt.poll(100, TimeUnit.MILLISECONDS);
                  }
                  if (released == null) { // stopped
                    lock.unlock();
                    return;
                  }
                  if (acquired < released) {
                    tally.count("early_handoffs");
                  }
                  tally.latency("handoff", Math.min(released, acquired), acquired);
                  tally.count("handoffs");
                }
                first = false;
                theirs.mayAsk.release();
                long until = acquired + HOLD.toNanos();
                for (long left = HOLD.toNanos(); left > 0; left = until - System.nanoTime()) {
                  LockSupport.parkNanos(
                      left); // the critical section's length, not a wait for an event
                }
                lock.unlock();
                theirs.releasedAt.add(System.nanoTime());
              }
            });
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    Tally tally = measurement.tally();
    double handoffs = tally.inWindow("handoffs");
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("handoffs_per_s", measurement.perSecond(handoffs));
    metrics.putAll(measurement.latencies("handoff"));
    metrics.put("early_handoffs", (double) tally.inWindow("early_handoffs"));
    metrics.putAll(measurement.costsPer(handoffs));
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    targets.ratio("2 threads", HANDOFF_P50, 0.75);
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        HANDOFF_P50,
        Metric.lower("handoff_p99_us", "hand-off p99", Metric.Unit.MICROS).inChart(),
        Metric.lower("handoff_max_us", "hand-off max", Metric.Unit.MICROS),
        Metric.higher("handoffs_per_s", "hand-offs/s", Metric.Unit.RATE),
        Costs.COMMANDS,
        Costs.ROUND_TRIPS,
        Costs.CLIENT_CPU);
  }
}
