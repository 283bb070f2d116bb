package dev.warden.internal.redis.sentinel;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import dev.warden.internal.redis.Calls;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a Sentinel-managed master on its own daemon thread ({@code warden-sentinel-N}): asks the
 * sentinels every {@link #POLL_MILLIS} and whenever one announces a switch, and moves to the
 * replica a failover leader selected as soon as it is named. Every decision and every move of
 * {@link SentinelDeployment}'s link happens on this one thread, one at a time; it may block on
 * connecting and on the sentinels' and nodes' answers, never on an event-loop thread. Its time is
 * the Warden's {@link Clock}, and the Warden's {@link Timer} runs its poll and ends its pauses
 * ({@link Calls#pause}), so nothing here reads the system clock or sleeps by itself.
 */
final class SentinelFollower {
  /**
   * How often the sentinels are asked where the master is, besides hearing their {@code
   * +switch-master} announcements: covers a lost announcement, a sentinel that was down and a
   * failover that needed several votes.
   */
  static final long POLL_MILLIS = 1_000;

  /**
   * How long a deployment that moved to the replica a failover leader selected waits for it to
   * become master (the leader promotes it within about 100 ms) before asking the sentinels again,
   * and how often it asks the replica its role meanwhile.
   */
  static final long PROMOTION_WAIT_MILLIS = 2_000;

  /** See {@link #PROMOTION_WAIT_MILLIS}. */
  static final long PROMOTION_POLL_MILLIS = 10;

  private static final long PROMOTION_POLL_NANOS =
      TimeUnit.MILLISECONDS.toNanos(PROMOTION_POLL_MILLIS);

  private static final Logger log = LoggerFactory.getLogger(SentinelFollower.class);
  private static final AtomicInteger threads = new AtomicInteger();

  private final SentinelDeployment deployment;
  private final SentinelWatcher watcher;
  private final String masterName;
  private final Clock clock;
  private final Timer timer;
  private final ExecutorService watcherThread;
  private final AtomicBoolean checkPending = new AtomicBoolean();

  SentinelFollower(
      SentinelDeployment deployment,
      SentinelWatcher watcher,
      String masterName,
      Clock clock,
      Timer timer) {
    this.deployment = deployment;
    this.watcher = watcher;
    this.masterName = masterName;
    this.clock = clock;
    this.timer = timer;
    this.watcherThread =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "warden-sentinel-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    watcher.listen(
        new SentinelWatcher.Events() {
          @Override
          public void switched() {
            requestCheck();
          }

          @Override
          public void selected(String host, int port, String masterHost, int masterPort) {
            submit(() -> moveEarly(host, port, masterHost, masterPort));
          }
        });
  }

  /** Starts the periodic poll, once the deployment has its first link. */
  void start() {
    schedulePoll();
  }

  /** Stops the thread, interrupting a wait, and waits up to {@code timeout} for it to end. */
  void stop(Duration timeout) {
    watcherThread.shutdownNow();
    try {
      watcherThread.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Has the timer hand the next poll to the watcher thread in {@link #POLL_MILLIS}: a fixed delay
   * between the end of one check and the start of the next. The chain ends when either is shut down
   * (closing).
   */
  private void schedulePoll() {
    try {
      timer.schedule(
          () ->
              submit(
                  () -> {
                    try {
                      check();
                    } finally {
                      schedulePoll();
                    }
                  }),
          TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
    } catch (RejectedExecutionException closing) {
      // the timer stopped: the Warden is closing
    }
  }

  private void requestCheck() {
    if (checkPending.compareAndSet(false, true)
        && !submit(
            () -> {
              checkPending.set(false);
              check();
            })) {
      checkPending.set(false);
    }
  }

  /** Runs {@code task} on the watcher thread; returns false if the deployment is closing. */
  private boolean submit(Runnable task) {
    try {
      watcherThread.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException e) {
              log.warn("Following Redis master '{}' failed; asking again shortly", masterName, e);
            }
          });
      return true;
    } catch (RejectedExecutionException closing) {
      return false;
    }
  }

  /** On the watcher thread: asks the sentinels, and follows the master if it moved. */
  private void check() {
    try {
      checkOnce();
    } catch (RuntimeException e) {
      log.warn("Following Redis master '{}' failed; asking again shortly", masterName, e);
    }
  }

  private void checkOnce() {
    SentinelWatcher.Answer answer;
    try {
      answer = watcher.ask();
    } catch (RuntimeException e) {
      log.debug("Sentinel check for master '{}' failed: {}", masterName, e.getMessage());
      return; // the next poll asks again
    }
    MasterLink link = deployment.current();
    if (link.isAt(answer.host(), answer.port())) {
      if (answer.epoch() > deployment.epoch()) {
        // failed over and back between two checks: the node may have lost writes meanwhile
        deployment.epoch(answer.epoch());
        deployment.runReconnectActions();
      }
    } else if (answer.epoch() >= deployment.epoch() || !answersAsMaster(link)) {
      // A lower epoch elsewhere is a stale sentinel, unless the node Warden uses is no master
      // any more: an early move to a replica whose failover was then aborted, which the
      // sentinels turn back into a replica.
      follow(answer);
    }
  }

  /**
   * Opens a link to the selected replica, trying again until {@code deadline}: the promotion kills
   * the replica's client connections, which may catch an opening link half-way. Returns null if
   * none could be opened (the sentinels are asked again then) or the thread is interrupted.
   */
  private MasterLink openUntil(long deadline, String host, int port) {
    while (true) {
      try {
        return deployment.open(host, port, /* requireMaster= */ false);
      } catch (RuntimeException e) {
        if (clock.nanoTime() - deadline > 0) {
          log.warn("Cannot reach {}:{}, replacing Redis master '{}'", host, port, masterName, e);
          checkOnce();
          return null;
        }
      }
      if (!Calls.pause(timer, PROMOTION_POLL_NANOS)) {
        return null; // closing
      }
    }
  }

  private static boolean answersAsMaster(MasterLink link) {
    try {
      return link.isMaster();
    } catch (RuntimeException e) {
      return false; // unreachable: let the sentinels' choice win, if it answers as master
    }
  }

  private void follow(SentinelWatcher.Answer answer) {
    MasterLink next;
    try {
      next = deployment.open(answer.host(), answer.port(), /* requireMaster= */ true);
    } catch (RuntimeException e) {
      log.warn(
          "Sentinels name {} as master '{}', which cannot be used yet ({}); asking again in {} ms",
          answer,
          masterName,
          e.getMessage(),
          POLL_MILLIS);
      return;
    }
    // never lower: tokens minted after this one must not rank below those minted before
    MasterLink previous = deployment.swapTo(next, Math.max(deployment.epoch(), answer.epoch()));
    if (previous != null) {
      log.info("Following Redis master '{}': {} -> {}", masterName, previous, answer);
      deployment.runReconnectActions();
    }
  }

  /**
   * On the watcher thread, when the failover leader selected the replica at {@code host:port} to
   * replace the current master: moves every later command there at once, before the promotion, so
   * that nothing more is written to the master being demoted (writes sent before the promotion fail
   * with READONLY, which callers retry), then waits for the promotion and raises the fence epoch
   * above the old one. The sentinels announce the switch only about a second later. If the replica
   * is not promoted in time, asks the sentinels, which then name the old master again.
   */
  private void moveEarly(String host, int port, String masterHost, int masterPort) {
    MasterLink link = deployment.current();
    if (!link.isAt(masterHost, masterPort) || link.isAt(host, port)) {
      return; // about a master Warden has left already
    }
    long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROMOTION_WAIT_MILLIS);
    MasterLink next = openUntil(deadline, host, port);
    if (next == null) {
      return;
    }
    long oldEpoch = deployment.epoch();
    // The promoted replica's configuration epoch is the failover's: above the old one, and at
    // least any a sentinel announced. Every command reaches the replica with it from now on, so
    // none mints a token there with the old epoch: until the promotion the replica refuses
    // writes, and the promotion cuts its connections (a script cut off is not replayed). Should
    // the failover be aborted, the old master keeps the raised epoch: a later failover's is higher
    // still (the sentinels that voted for this one only vote for a higher epoch).
    MasterLink previous = deployment.swapTo(next, Math.max(oldEpoch + 1, watcher.announcedEpoch()));
    if (previous == null) {
      return;
    }
    log.info("Redis master '{}' is being replaced: {} -> {}", masterName, previous, next);
    // The promotion's transaction ends with CLIENT KILL TYPE normal and pubsub: both connections
    // of the new link are cut then and reconnect by themselves (the pub/sub connection subscribes
    // again, which wakes the waiters); commands cut off fail as transient and are retried.
    while (clock.nanoTime() - deadline < 0) {
      try {
        if (next.isMaster()) {
          // the new configuration epoch is at least the next one, and at least any announced
          deployment.epoch(
              Math.max(Math.max(deployment.epoch(), oldEpoch + 1), watcher.announcedEpoch()));
          deployment.runReconnectActions();
          return;
        }
      } catch (RuntimeException e) {
        log.debug("Asking {} for its role failed: {}", next, e.toString());
        if (Thread.currentThread().isInterrupted()) {
          return; // closing
        }
        continue; // at once: the failed call took its time
      }
      if (!Calls.pause(timer, PROMOTION_POLL_NANOS)) {
        return; // closing
      }
    }
    log.warn("{} was not promoted to Redis master '{}' in time", next, masterName);
    checkOnce();
  }
}
