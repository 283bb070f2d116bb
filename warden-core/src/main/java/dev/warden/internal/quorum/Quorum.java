package dev.warden.internal.quorum;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.lock.LockParts;
import dev.warden.internal.redis.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redlock algorithm over the parts of one quorum lock: one attempt takes every part at once,
 * each call bounded by a tenth of the lease; it succeeds with a majority of parts and a positive
 * validity (lease minus elapsed minus drift), and otherwise gives back every part, including those
 * whose call ran past its bound (they may still succeed, and are given back when they do).
 *
 * <p>Part calls run on a shared pool of daemon threads ({@code warden-quorum-N}), because a part's
 * {@code tryAcquire} blocks for one round trip. Thread-safe.
 */
final class Quorum {
  private static final Logger log = LoggerFactory.getLogger(Quorum.class);
  private static final Script FENCE_RAISE = Script.load(Quorum.class, "quorum-fence-raise");
  private static final long EPOCH_SPAN_BITS = 47;
  private static final AtomicInteger THREADS = new AtomicInteger();
  static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "warden-quorum-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });

  private final List<DistributedLock> parts;
  private final String describe;
  private final Clock clock;

  Quorum(List<DistributedLock> parts, String describe, Clock clock) {
    this.parts = parts;
    this.describe = describe;
    this.clock = clock;
  }

  String describe() {
    return describe;
  }

  Clock clock() {
    return clock;
  }

  int size() {
    return parts.size();
  }

  /** The number of parts a hold needs: more than half. */
  int majority() {
    return parts.size() / 2 + 1;
  }

  /** The clock drift allowed for: 1 % of the lease plus 2 ms (the Redlock specification). */
  static long driftMillis(long leaseMillis) {
    return leaseMillis / 100 + 2;
  }

  /** How long one part's call may take: a tenth of the lease, at least 10 ms. */
  static long callBoundMillis(long leaseMillis) {
    return Math.max(10, leaseMillis / 10);
  }

  /**
   * The moment (on {@link Clock}) until which a hold taken by calls sent at {@code startedNanos} is
   * valid: the lease minus the drift, counted from the moment the calls were sent.
   */
  static long validUntil(long startedNanos, long leaseMillis) {
    return startedNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis - driftMillis(leaseMillis));
  }

  /**
   * Acquires a majority within {@code waitNanos} (negative: without limit), retrying after a
   * randomized pause; returns null when not in time.
   */
  QuorumHandle acquire(long leaseMillis, boolean renewed, long waitNanos, boolean interruptible)
      throws InterruptedException {
    long deadline = clock.nanoTime() + waitNanos;
    boolean interrupted = false;
    try {
      while (true) {
        QuorumHandle handle = attempt(leaseMillis, renewed, interruptible);
        if (handle != null) {
          return handle;
        }
        long left = waitNanos < 0 ? Long.MAX_VALUE : deadline - clock.nanoTime();
        if (left <= 0) {
          return null;
        }
        long pause = TimeUnit.MILLISECONDS.toNanos(100 + ThreadLocalRandom.current().nextLong(201));
        try {
          // a randomized back-off, so that contenders that split the votes do not collide again
          TimeUnit.NANOSECONDS.sleep(Math.min(left, pause));
        } catch (InterruptedException e) {
          if (interruptible) {
            throw e;
          }
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** One round of calls to every part; the hold, or null after giving back what it took. */
  private QuorumHandle attempt(long leaseMillis, boolean renewed, boolean interruptible)
      throws InterruptedException {
    long started = clock.nanoTime();
    long bound = TimeUnit.MILLISECONDS.toNanos(callBoundMillis(leaseMillis));
    List<CompletableFuture<Optional<LockHandle>>> calls = new ArrayList<>();
    for (DistributedLock part : parts) {
      calls.add(CompletableFuture.supplyAsync(() -> take(part, leaseMillis), CALLS));
    }
    try {
      awaitAll(calls, started + bound, interruptible);
    } catch (InterruptedException e) {
      calls.forEach(Quorum::giveBackWhenDone);
      throw e;
    }
    LockHandle[] held = new LockHandle[parts.size()];
    int count = 0;
    for (int i = 0; i < calls.size(); i++) {
      CompletableFuture<Optional<LockHandle>> call = calls.get(i);
      if (!call.isDone()) {
        giveBackWhenDone(call); // past its bound: it may still succeed
      } else if (!call.isCompletedExceptionally()) {
        held[i] = call.join().orElse(null);
        count += held[i] == null ? 0 : 1;
      } else {
        log.debug("{}: part {} failed: {}", describe, i, failure(call));
      }
    }
    long validUntil = validUntil(started, leaseMillis);
    if (count < majority() || clock.nanoTime() - validUntil >= 0) {
      giveBack(held);
      return null;
    }
    long token = 0;
    for (LockHandle handle : held) {
      token = handle == null ? token : Math.max(token, handle.fencingToken());
    }
    // the next majority overlaps these parts, so it must mint above this token on every one
    if (raiseFences(held, token, started + 2 * bound) < majority()
        || clock.nanoTime() - validUntil >= 0) {
      giveBack(held);
      return null;
    }
    return new QuorumHandle(this, held, token, validUntil, leaseMillis, renewed);
  }

  /**
   * Takes one part with a fixed lease: the quorum renews its renewed holds itself (all parts at
   * once, see {@link QuorumHandle}), not each part's lease keeper, so that one validity covers
   * them.
   */
  private static Optional<LockHandle> take(DistributedLock part, long leaseMillis) {
    try {
      return part.tryAcquire(Duration.ZERO, Duration.ofMillis(leaseMillis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Waits for every call until {@code deadline}; an interrupt ends it only if interruptible. */
  private void awaitAll(
      List<? extends CompletableFuture<?>> calls, long deadline, boolean interruptible)
      throws InterruptedException {
    CompletableFuture<Void> all =
        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]));
    boolean interrupted = false;
    try {
      while (true) {
        long left = deadline - clock.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          all.get(left, TimeUnit.NANOSECONDS);
          return;
        } catch (TimeoutException | ExecutionException e) {
          if (e instanceof TimeoutException || all.isDone()) {
            return;
          }
        } catch (InterruptedException e) {
          if (interruptible) {
            throw e;
          }
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Raises the fence of every held part to {@code token}, waiting until {@code deadline}; returns
   * on how many parts the fence now stands at or above it.
   */
  private int raiseFences(LockHandle[] held, long token, long deadline)
      throws InterruptedException {
    String epoch = Long.toString(token >>> EPOCH_SPAN_BITS);
    String count = Long.toString(token & ((1L << EPOCH_SPAN_BITS) - 1));
    String retention = Long.toString(Settings.FENCE_RETENTION_MILLIS);
    List<CompletableFuture<List<Object>>> raises = new ArrayList<>();
    for (int i = 0; i < held.length; i++) {
      if (held[i] == null) {
        raises.add(null);
        continue;
      }
      DistributedLock part = parts.get(i);
      raises.add(
          LockParts.scripts(part)
              .run(
                  FENCE_RAISE,
                  new String[] {LockParts.keys(part).fence()},
                  epoch,
                  count,
                  retention));
    }
    List<CompletableFuture<List<Object>>> sent = new ArrayList<>();
    raises.forEach(
        raise -> {
          if (raise != null) {
            sent.add(raise);
          }
        });
    awaitAll(sent, deadline, false);
    int raised = 0;
    for (int i = 0; i < raises.size(); i++) {
      CompletableFuture<List<Object>> raise = raises.get(i);
      if (raise != null && raise.isDone() && !raise.isCompletedExceptionally()) {
        raised++;
      } else if (raise != null) {
        log.warn("{}: could not raise the fence of part {}: {}", describe, i, failure(raise));
      }
    }
    return raised;
  }

  private static String failure(CompletableFuture<?> future) {
    if (!future.isDone()) {
      return "no reply in time";
    }
    try {
      future.join();
      return "none";
    } catch (RuntimeException e) {
      return String.valueOf(e.getCause() == null ? e : e.getCause());
    }
  }

  /** Gives back every hold taken; failures are logged (the leases bound them). */
  void giveBack(LockHandle[] held) {
    for (LockHandle handle : held) {
      if (handle != null) {
        closeQuietly(handle);
      }
    }
  }

  private static void giveBackWhenDone(CompletableFuture<Optional<LockHandle>> call) {
    var unused = call.thenAccept(late -> late.ifPresent(Quorum::closeQuietly));
  }

  private static void closeQuietly(LockHandle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      log.debug(
          "a quorum part could not be given back; it expires with its lease: {}", e.toString());
    }
  }
}
