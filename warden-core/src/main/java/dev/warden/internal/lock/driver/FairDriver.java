package dev.warden.internal.lock.driver;

import dev.warden.ObjectType;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Namespace;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.Outcome;
import dev.warden.internal.wait.SharedWait;
import dev.warden.internal.wait.Successor;
import dev.warden.internal.wait.WakeMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The fair lock's data and scripts (fair-*.lua): the reentrant lock's hash plus a queue of waiters
 * ordered by the ticket Redis gave them when they first asked, and a heartbeat per waiter.
 *
 * <p>Strict FIFO: the lock goes to the first live waiter; {@code tryLock()} without a wait never
 * queues and never overtakes one. A release publishes the head's id, so only the head's client
 * wakes only the head. A waiter refreshes its heartbeat with every attempt, and while this client's
 * waiters are parked, one call (fair-heartbeat.lua) refreshes all of theirs every {@link
 * Settings#HEARTBEAT_MILLIS} ({@link #sharedWait()}); a waiter silent for {@link
 * Settings#HEARTBEAT_TIMEOUT_MILLIS} (its process died) is dropped when it reaches the head, and
 * one that gives up leaves at once. A live waiter dropped for a late heartbeat (a long pause)
 * rejoins at its old ticket, so it keeps its place.
 *
 * <p>Waiting: a refusal of this client's parked waiter with the earliest ticket stands for all of
 * this client's waiters (none of them is the live head before it), so they share one re-check per
 * interval, made by that waiter, and one heartbeat call.
 *
 * <p>Hand-off: the release of the last hold offers the lock to this client's parked waiter with the
 * earliest ticket; if Redis says that waiter is the live head, the same script gives it the lock,
 * without a message or a script call of its own. Otherwise the release tells the head and the
 * offered waiter waits on. The script, not this client, decides who is first.
 *
 * <p>Between clients: a last release whose live head is another client's waiter that takes grants
 * gives it the lock in the same script (a direct grant, fair-release.lua's 'Grants'), and that
 * waiter's client completes the acquisition from the message, as for the reentrant lock; where it
 * cannot (nobody listens there, a waiter with an explicit lease or of a previous version, the
 * client wake-up mode), it tells the head to try. CONCURRENCY.md, "Direct grants".
 */
public final class FairDriver implements LockDriver {
  private static final String HEARTBEAT_TIMEOUT = Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS);
  private static final long HEARTBEAT_NANOS =
      TimeUnit.MILLISECONDS.toNanos(Settings.HEARTBEAT_MILLIS);
  private static final String GRANT_LEASE = Long.toString(Settings.GRANT_LEASE_MILLIS);

  private final Scripts scripts;
  private final LockKeys keys;
  private final Parts parts;
  private final String markerMillis;

  /**
   * Tickets of this client's waiting acquisitions, by acquisition id, kept between their attempts:
   * by acquisition, not by owner, so that an acquisition that ended cannot pass its ticket on to
   * (or take it from) the same owner's next one.
   */
  private final Map<String, Long> tickets = new ConcurrentHashMap<>();

  /**
   * @param markerMillis how long a release's marker lives, in ms, as a script argument (see {@link
   *     LockDriver#release})
   */
  public FairDriver(Scripts scripts, Namespace namespace, String name, String markerMillis) {
    this.scripts = scripts;
    this.markerMillis = markerMillis;
    this.keys = LockKeys.of(namespace, name, "fair", "fair lock");
    this.parts =
        new Parts(
            keys,
            new Renewal(DriverScripts.LOCK_RENEW, List.of(keys.lock())),
            new HashQueries(scripts.redis(), keys.lock()),
            new Subject(ObjectType.FAIR_LOCK, keys.name()));
  }

  @Override
  public Parts parts() {
    return parts;
  }

  /**
   * This client's parked waiters of this lock share their re-checks, and their heartbeats are sent
   * in one call per {@link Settings#HEARTBEAT_MILLIS} for all of them.
   */
  @Override
  public SharedWait sharedWait() {
    return heartbeats;
  }

  private final SharedWait heartbeats =
      new SharedWait() {
        @Override
        public long heartbeatNanos() {
          return HEARTBEAT_NANOS;
        }

        @Override
        public CompletableFuture<List<Integer>> heartbeat(List<Successor> parked) {
          return FairDriver.this.heartbeat(parked);
        }
      };

  /**
   * Refreshes the heartbeats of these parked waiters in one call (fair-heartbeat.lua); completes
   * with the indices of those without a queue entry made for their acquisition.
   */
  private CompletableFuture<List<Integer>> heartbeat(List<Successor> parked) {
    String[] args = new String[1 + 2 * parked.size()];
    args[0] = HEARTBEAT_TIMEOUT;
    for (int i = 0; i < parked.size(); i++) {
      HandOffTerms terms = parked.get(i).terms();
      args[1 + 2 * i] = terms.owner();
      args[2 + 2 * i] = terms.acquisitionId();
    }
    return scripts
        .run(
            DriverScripts.FAIR_HEARTBEAT,
            new String[] {
              keys.key("queue"), keys.key("beats"), keys.key("tickets"), keys.key("entries")
            },
            args)
        .thenApply(
            reply -> {
              List<Integer> gone = new ArrayList<>(reply.size());
              for (Object position : reply) {
                gone.add((int) (((Number) position).longValue() - 1));
              }
              return gone;
            });
  }

  @Override
  public String waiterId(String owner) {
    return owner;
  }

  @Override
  public long ticket(String acquisitionId) {
    return tickets.getOrDefault(acquisitionId, Long.MAX_VALUE);
  }

  @Override
  public void forget(String acquisitionId) {
    tickets.remove(acquisitionId);
  }

  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait) {
    return attempt(owner, acquisitionId, heldBefore, leaseMillis, willWait, false);
  }

  /**
   * Tries once; the hint is not used (fair-acquire.lua reads what it needs). {@code registers}: a
   * refused waiter takes a direct grant, and its queue entry records its lease for it
   * (fair-acquire's ARGV[10]); the caller asks it only where {@link #grantsDirectly()}.
   */
  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait,
      RefusalHint hint,
      boolean registers) {
    return attempt(owner, acquisitionId, heldBefore, leaseMillis, willWait, registers);
  }

  private CompletableFuture<Attempt> attempt(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean willWait,
      boolean registers) {
    // a waiter keeps its ticket across attempts: a late heartbeat must not cost its place
    Long ticket = tickets.get(acquisitionId);
    return scripts
        .run(
            DriverScripts.FAIR_ACQUIRE,
            new String[] {
              keys.lock(),
              keys.fence(),
              keys.key("queue"),
              keys.key("beats"),
              keys.key("tickets"),
              keys.key("entries")
            },
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            scripts.fenceTerms(),
            willWait ? "1" : "0",
            HEARTBEAT_TIMEOUT,
            ticket == null ? "" : Long.toString(ticket),
            keys.channel(),
            acquisitionId,
            registers ? "1" : "0")
        .thenApply(
            reply -> {
              if (Scripts.succeeded(reply)) {
                tickets.remove(acquisitionId);
                return Attempt.acquired(Scripts.number(reply, 1), (int) Scripts.number(reply, 2));
              }
              long given = Scripts.number(reply, 2);
              if (given >= 0) {
                tickets.put(acquisitionId, given);
              }
              return Attempt.busy(Replies.heartbeat(Outcome.untilExpiry(Scripts.number(reply, 1))));
            });
  }

  @Override
  public CompletableFuture<Release> lower(String owner, int count, String undo, String releaseId) {
    return releaseTo(owner, count, null, undo, releaseId, "").thenApply(FairDriver::parseRelease);
  }

  @Override
  public CompletableFuture<Release> dropLost(String owner, long token) {
    return releaseTo(owner, 1, null, "", "", Long.toString(token))
        .thenApply(FairDriver::parseRelease);
  }

  @Override
  public boolean grantsDirectly() {
    return !scripts.clientPublishes(); // the recording twins grant nothing (fair-release.lua)
  }

  @Override
  public CompletableFuture<Release> giveBackGrant(String owner, String acquisitionId, long token) {
    return releaseTo(owner, 0, null, acquisitionId, "", Long.toString(token))
        .thenApply(FairDriver::parseRelease);
  }

  @Override
  public CompletableFuture<Release> releaseLast(
      String owner, String releaseId, Successors successors) {
    Successors.Candidate first = successors.earliest();
    if (first == null) {
      return release(owner, 1, releaseId);
    }
    return releaseTo(owner, 1, first.terms(), "", releaseId, "")
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                // it may have run: the waiter's own attempt then finds the hold it was given, or,
                // if its acquisition is over, it gives that hold back
                first.inDoubt();
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              if (reply.size() == 4) {
                first.handedOver(Scripts.number(reply, 3), false);
                return Release.HANDED_OVER;
              }
              first.notFirst(); // the head is another (granted directly, or told)
              return parseRelease(reply);
            });
  }

  /**
   * Gives back one hold, or acquisition {@code undo} ('' for a release); with the last one, hands
   * the lock straight to the waiter of {@code to} (or to nobody when null) if it is the live head
   * of the queue, or grants it directly to the head if that is another client's waiter that takes
   * grants. The reply is {1, remaining, head or ''}, {1, 0, waiter, token} when handed over, {1, 0,
   * head, token, 1} when granted to another client's head, or {0} when the owner held no hold (or
   * not the undone acquisition's, or not under {@code token}: '' for no such condition).
   */
  private CompletableFuture<List<Object>> releaseTo(
      String owner, int count, HandOffTerms to, String undo, String releaseId, String token) {
    return scripts.run(
        DriverScripts.FAIR_RELEASE,
        !token.isEmpty(), // a drop, a grant's give-back: rare, must run when sent (Scripts.run)
        new String[] {
          keys.lock(),
          keys.key("queue"),
          keys.key("beats"),
          keys.fence(),
          keys.releaseMarker(owner),
          keys.key("entries")
        },
        owner,
        Integer.toString(count),
        keys.channel(),
        to == null ? "" : to.owner(),
        Long.toString(to == null ? 0 : to.leaseMillis()),
        to == null ? "" : to.acquisitionId(),
        scripts.fenceTerms(),
        undo,
        releaseId,
        markerMillis,
        token,
        grantsDirectly() ? GRANT_LEASE : "");
  }

  /**
   * Parses a release that did not hand the lock over: the head named in it is woken alone, unless
   * the release granted it the lock (another client's waiter: nobody here is woken).
   */
  private static Release parseRelease(List<Object> reply) {
    if (!Scripts.succeeded(reply)) {
      return new Release(false, 0, WakeMessage.ONE);
    }
    if (reply.size() > 4) {
      return new Release(true, 0, WakeMessage.NONE);
    }
    String head = String.valueOf(reply.get(2));
    return new Release(
        true,
        (int) Scripts.number(reply, 1),
        head.isEmpty() ? WakeMessage.ONE : WakeMessage.only(head));
  }

  /** Takes out the queue entry this acquisition made (fair-leave.lua), whatever its ticket. */
  @Override
  public CompletableFuture<?> leave(String owner, String acquisitionId) {
    tickets.remove(acquisitionId);
    return scripts.run(
        DriverScripts.FAIR_LEAVE,
        new String[] {keys.lock(), keys.key("queue"), keys.key("beats"), keys.key("entries")},
        owner,
        keys.channel(),
        acquisitionId);
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(
            DriverScripts.FAIR_FORCE_RELEASE,
            new String[] {keys.lock(), keys.key("queue")},
            keys.channel())
        .thenApply(Scripts::succeeded);
  }
}
