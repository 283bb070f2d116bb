package dev.warden.internal.wait;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How the parked acquisitions of one object in this client wait together, in one line of their
 * topic: made once per object by the primitive, for claims whose refusal by Redis stands for every
 * other such claim of this client (the lock's first acquisitions: the lock is held by another
 * client, or it is another client's turn). The line re-checks with one attempt per interval, by its
 * first waiter, and, if the object keeps a queue whose entries need a heartbeat (the fair lock's),
 * keeps the entries of the others alive with one call for all of them.
 */
public interface SharedWait {
  /** A line whose waiters keep no entry alive in Redis: its re-checks are all it shares. */
  SharedWait RECHECKS = new SharedWait() {};

  /** How often the parked waiters' queue entries need a heartbeat, in ns; 0 when never. */
  default long heartbeatNanos() {
    return 0;
  }

  /**
   * Refreshes the queue entries of these parked waiters (all of one object) in one call, and
   * completes with the indices in {@code parked} of those whose entry Redis no longer has (dropped
   * after a long pause, or their acquisition left): those are woken to ask again for themselves. An
   * entry that is gone is never made again by a heartbeat, so a heartbeat that arrives after its
   * waiter left the queue changes nothing. Must not block.
   */
  default CompletableFuture<List<Integer>> heartbeat(List<Successor> parked) {
    return CompletableFuture.completedFuture(List.of());
  }
}
