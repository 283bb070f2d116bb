package dev.warden.internal.lock;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lock.driver.LockDriver;
import dev.warden.internal.lock.driver.Successors;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.Subscriptions;
import dev.warden.internal.wait.Successor;
import dev.warden.internal.wait.Topic;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One lock's side of the hand-off: finds the parked waiter of this client that a release may give
 * the lock to, and completes it when the driver's release script did. The drivers decide whether
 * and how their release hands over ({@link LockDriver#releaseLast}); this class knows the waiters.
 *
 * <p>Only a parked waiter is taken, atomically off its topic, so no attempt of its own is in
 * flight; a waiter that gave up meanwhile gives the hold back through its acquisition, also when
 * the release's reply was lost (it may have been handed the lock: {@link
 * Successor#handOffInDoubt}), by its acquisition id, so never a hold its owner took later. The
 * waiter is completed on the thread where the release's reply arrives (the event loop): one thread
 * wake-up less per hand-off.
 *
 * <p>Rows: while a waiter that no hand-off can reach (another client's, or a multi-lock's) was
 * refused, a real release follows at most {@link Settings#HAND_OFFS_IN_A_ROW} hand-offs in a row,
 * so that it gets its chance. The rows are counted per lock for the whole client ({@link Rows}).
 */
final class HandOff implements Successors {
  private final LockDriver driver;
  private final Subscriptions subscriptions;
  private final Holds holds;
  private final Rows rows;
  private final Clock clock;

  HandOff(LockDriver driver, Subscriptions subscriptions, Holds holds, Rows rows, Clock clock) {
    this.driver = driver;
    this.subscriptions = subscriptions;
    this.holds = holds;
    this.rows = rows;
    this.clock = clock;
  }

  @Override
  public Candidate next() {
    Topic topic = subscriptions.topic(driver.channel());
    if (topic == null) {
      rows.realRelease(driver.holdKey());
      return null;
    }
    if (!rows.mayHandOff(driver.holdKey())) {
      return null;
    }
    Successor taken = topic.claim(driver.holdKey());
    if (taken == null) {
      rows.realRelease(driver.holdKey());
      return null;
    }
    return new Taken(taken, topic, topic.generation(), true);
  }

  @Override
  public boolean yielding() {
    return rows.yielded(driver.holdKey());
  }

  @Override
  public Candidate earliest() {
    Topic topic = subscriptions.topic(driver.channel());
    if (topic == null) {
      return null;
    }
    long generation = topic.generation();
    Successor taken = topic.claim(driver.holdKey());
    return taken == null ? null : new Taken(taken, topic, generation, false);
  }

  /** A waiter taken off its topic for one release. */
  private final class Taken implements Candidate {
    private final Successor successor;
    private final Topic topic;
    private final long generation;
    private final boolean counted;
    private final long sentAt = clock.nanoTime();

    Taken(Successor successor, Topic topic, long generation, boolean counted) {
      this.successor = successor;
      this.topic = topic;
      this.generation = generation;
      this.counted = counted;
    }

    @Override
    public HandOffTerms terms() {
      return successor.terms();
    }

    @Override
    public void handedOver(long token, boolean othersWait) {
      if (counted) {
        rows.handedOff(driver.holdKey(), othersWait);
      }
      if (driver.waitsForLocalHolder()) {
        // before the grant: the releasing thread, locking again, must find it held here
        holds.handedTo(driver.holdKey(), successor.terms().owner());
      }
      successor.grant(token, sentAt);
    }

    @Override
    public void declined() {
      successor.wake();
    }

    @Override
    public void inDoubt() {
      successor.handOffInDoubt();
    }

    @Override
    public void notFirst() {
      successor.reparkOrWake(topic, generation);
    }
  }

  /**
   * The hand-offs in a row of each lock of this client, counted while the last hand-off found that
   * a waiter no hand-off can reach was refused (the lock's {@code #o}); a lock has an entry only
   * then. A row ends after {@link Settings#HAND_OFFS_IN_A_ROW} hand-offs or {@link
   * Settings#HAND_OFF_ROW_MILLIS}, whichever comes first, so that another client waits for a
   * bounded number of turns and a bounded time however long the holds last.
   */
  static final class Rows {
    /** A row: its hand-offs so far, and when its first one was made. */
    private record Row(int turns, long startedNanos) {}

    private static final long ROW_NANOS =
        TimeUnit.MILLISECONDS.toNanos(Settings.HAND_OFF_ROW_MILLIS);

    private final Map<String, Row> inARow = new ConcurrentHashMap<>();
    private final Set<String> yielding = ConcurrentHashMap.newKeySet();
    private final Clock clock;

    Rows(Clock clock) {
      this.clock = clock;
    }

    /**
     * Whether a release may hand the lock to a waiter of this client: always, unless the row of
     * hand-offs made while others waited is full (in turns or in time); then returns false once and
     * ends the row, so that a real release gives them their chance.
     */
    boolean mayHandOff(String lock) {
      Row row = inARow.get(lock);
      if (row == null
          || (row.turns() < Settings.HAND_OFFS_IN_A_ROW
              && clock.nanoTime() - row.startedNanos() < ROW_NANOS)) {
        return true;
      }
      inARow.remove(lock);
      yielding.add(lock);
      return false;
    }

    /** Whether the row of {@code lock} just ended full; asking consumes the answer. */
    boolean yielded(String lock) {
      return !yielding.isEmpty() && yielding.remove(lock);
    }

    /** Records a hand-off made, and whether Redis said that others wait that it cannot reach. */
    void handedOff(String lock, boolean othersWait) {
      if (othersWait) {
        inARow.compute(
            lock,
            (unused, row) ->
                row == null
                    ? new Row(1, clock.nanoTime())
                    : new Row(row.turns() + 1, row.startedNanos()));
      } else {
        inARow.remove(lock);
      }
    }

    /** A real release ends the row. */
    void realRelease(String lock) {
      if (!inARow.isEmpty()) { // the uncontended release asks nothing more
        inARow.remove(lock);
      }
    }
  }
}
