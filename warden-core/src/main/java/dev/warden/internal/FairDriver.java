package dev.warden.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fair lock's data and scripts (fair-*.lua): the reentrant lock's hash plus a queue of waiters
 * ordered by the ticket Redis gave them when they first asked, and a heartbeat per waiter.
 *
 * <p>Strict FIFO: the lock goes to the first live waiter; {@code tryLock()} without a wait never
 * queues and never overtakes one. A release publishes the head's id, so only the head's client
 * wakes only the head. Waiters refresh their heartbeat with every attempt, at least every {@link
 * #HEARTBEAT_MILLIS}; a waiter silent for {@link #HEARTBEAT_TIMEOUT_MILLIS} (its process died) is
 * dropped when it reaches the head, and one that gives up leaves at once. A live waiter dropped for
 * a late heartbeat (a long pause) rejoins at its old ticket, so it keeps its place.
 */
final class FairDriver implements LockDriver {
  /** How long a waiter may stay silent before it counts as dead. */
  static final long HEARTBEAT_TIMEOUT_MILLIS = 3_000;

  /** A waiter asks again at least this often, which refreshes its heartbeat. */
  static final long HEARTBEAT_MILLIS = 1_000;

  private final WardenRuntime runtime;
  private final LockKeys keys;
  private final Scripts scripts;

  /** Tickets of this client's waiters, kept between their attempts. */
  private final Map<String, Long> tickets = new ConcurrentHashMap<>();

  FairDriver(WardenRuntime runtime, String name) {
    this.runtime = runtime;
    this.keys = LockKeys.of(name, "fair", "fair lock");
    this.scripts = runtime.scripts();
  }

  @Override
  public LockKeys keys() {
    return keys;
  }

  @Override
  public WardenRuntime runtime() {
    return runtime;
  }

  @Override
  public String waiterId(String owner) {
    return owner;
  }

  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait) {
    // a waiter keeps its ticket across attempts: a late heartbeat must not cost its place
    return scripts
        .run(
            Scripts.FAIR_ACQUIRE,
            new String[] {
              keys.lock(), keys.fence(), keys.key("queue"), keys.key("beats"), keys.key("tickets")
            },
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            runtime.fenceRetentionMillis(),
            willWait ? "1" : "0",
            Long.toString(HEARTBEAT_TIMEOUT_MILLIS),
            ticketArgument(owner),
            keys.channel(),
            acquisitionId)
        .thenApply(
            reply -> {
              if (Scripts.number(reply, 0) == 1) {
                tickets.remove(owner);
                return Attempt.acquired(Scripts.number(reply, 1), (int) Scripts.number(reply, 2));
              }
              long ticket = Scripts.number(reply, 2);
              if (ticket >= 0) {
                tickets.put(owner, ticket);
              }
              long retry = Scripts.number(reply, 1);
              return Attempt.busy(retry > 0 ? Math.min(retry, HEARTBEAT_MILLIS) : HEARTBEAT_MILLIS);
            });
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return releaseTo(owner, heldBefore, null, 0, "").thenApply(FairDriver::parseRelease);
  }

  /**
   * Gives back one hold; with the last one, hands the lock straight to {@code waiter} (a parked
   * waiter of this client, or null for none) if it is the live head of the queue. The reply is {1,
   * remaining, head or ''}, {1, 0, waiter, token} when handed over, or {0} when the owner held no
   * hold.
   */
  CompletableFuture<List<Object>> releaseTo(
      String owner,
      int heldBefore,
      String waiter,
      long waiterLeaseMillis,
      String waiterAcquisition) {
    return scripts.run(
        Scripts.FAIR_RELEASE,
        new String[] {keys.lock(), keys.key("queue"), keys.key("beats"), keys.fence()},
        owner,
        Integer.toString(heldBefore),
        keys.channel(),
        waiter == null ? "" : waiter,
        Long.toString(waiterLeaseMillis),
        waiterAcquisition,
        runtime.fenceRetentionMillis());
  }

  /** Whether a {@link #releaseTo} reply says the lock went to the waiter named in the call. */
  static boolean handedOver(List<Object> reply) {
    return reply.size() > 3;
  }

  /** Parses a {@link #releaseTo} reply that did not hand the lock over. */
  static Release parseRelease(List<Object> reply) {
    return Scripts.number(reply, 0) == 1
        ? new Release(true, (int) Scripts.number(reply, 1), String.valueOf(reply.get(2)))
        : new Release(false, 0, "");
  }

  /** Forgets the ticket of a waiter that was handed the lock (see {@link #releaseTo}). */
  void handedOver(String owner) {
    tickets.remove(owner);
  }

  /**
   * The ticket (place in the queue) a waiter of this client was given, or {@link Long#MAX_VALUE}
   * when it has none yet.
   */
  long ticket(String owner) {
    return tickets.getOrDefault(owner, Long.MAX_VALUE);
  }

  /** The ticket as fair-acquire.lua takes it: '' when the waiter has none yet. */
  private String ticketArgument(String owner) {
    Long ticket = tickets.get(owner);
    return ticket == null ? "" : Long.toString(ticket);
  }

  @Override
  public CompletableFuture<?> leave(String owner) {
    tickets.remove(owner);
    return scripts.run(
        Scripts.FAIR_LEAVE,
        new String[] {keys.lock(), keys.key("queue"), keys.key("beats")},
        owner,
        keys.channel());
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(
            Scripts.FAIR_FORCE_RELEASE,
            new String[] {keys.lock(), keys.key("queue")},
            keys.channel())
        .thenApply(reply -> Scripts.number(reply, 0) == 1);
  }
}
