package dev.warden.internal.lock.driver;

import dev.warden.ObjectType;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fair lock's data and scripts (fair-*.lua): the reentrant lock's hash plus a queue of waiters
 * ordered by the ticket Redis gave them when they first asked, and a heartbeat per waiter.
 *
 * <p>Strict FIFO: the lock goes to the first live waiter; {@code tryLock()} without a wait never
 * queues and never overtakes one. A release publishes the head's id, so only the head's client
 * wakes only the head. Waiters refresh their heartbeat with every attempt, at least every {@link
 * Settings#HEARTBEAT_MILLIS}; a waiter silent for {@link Settings#HEARTBEAT_TIMEOUT_MILLIS} (its
 * process died) is dropped when it reaches the head, and one that gives up leaves at once. A live
 * waiter dropped for a late heartbeat (a long pause) rejoins at its old ticket, so it keeps its
 * place.
 *
 * <p>Hand-off: the release of the last hold offers the lock to this client's parked waiter with the
 * earliest ticket; if Redis says that waiter is the live head, the same script gives it the lock,
 * without a message or a script call of its own. Otherwise the release tells the head as usual and
 * the offered waiter waits on. The script, not this client, decides who is first.
 */
public final class FairDriver implements LockDriver {
  private static final String HEARTBEAT_TIMEOUT = Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS);

  private final Scripts scripts;
  private final LockKeys keys;
  private final Parts parts;

  /** Tickets of this client's waiters, kept between their attempts. */
  private final Map<String, Long> tickets = new ConcurrentHashMap<>();

  public FairDriver(Scripts scripts, String name) {
    this.scripts = scripts;
    this.keys = LockKeys.of(name, "fair", "fair lock");
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

  @Override
  public String waiterId(String owner) {
    return owner;
  }

  @Override
  public long ticket(String owner) {
    return tickets.getOrDefault(owner, Long.MAX_VALUE);
  }

  @Override
  public void forget(String owner) {
    tickets.remove(owner);
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
    Long ticket = tickets.get(owner);
    return scripts
        .run(
            DriverScripts.FAIR_ACQUIRE,
            new String[] {
              keys.lock(), keys.fence(), keys.key("queue"), keys.key("beats"), keys.key("tickets")
            },
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            scripts.fenceTerms(),
            willWait ? "1" : "0",
            HEARTBEAT_TIMEOUT,
            ticket == null ? "" : Long.toString(ticket),
            keys.channel(),
            acquisitionId)
        .thenApply(
            reply -> {
              if (Scripts.succeeded(reply)) {
                tickets.remove(owner);
                return Attempt.acquired(Scripts.number(reply, 1), (int) Scripts.number(reply, 2));
              }
              long given = Scripts.number(reply, 2);
              if (given >= 0) {
                tickets.put(owner, given);
              }
              return Attempt.busy(Replies.heartbeat(Scripts.number(reply, 1)));
            });
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return releaseTo(owner, heldBefore, null).thenApply(FairDriver::parseRelease);
  }

  @Override
  public CompletableFuture<Release> releaseLast(String owner, Successors successors) {
    Successors.Candidate first = successors.earliest();
    if (first == null) {
      return release(owner, 1);
    }
    return releaseTo(owner, 1, first.terms())
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                // it may have run: the waiter's own attempt then finds the hold it was given
                first.declined();
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              if (reply.size() > 3) {
                first.handedOver(Scripts.number(reply, 3), false);
                return Release.HANDED_OVER;
              }
              first.notFirst();
              return parseRelease(reply);
            });
  }

  /**
   * Gives back one hold; with the last one, hands the lock straight to the waiter of {@code to} (or
   * to nobody when null) if it is the live head of the queue. The reply is {1, remaining, head or
   * ''}, {1, 0, waiter, token} when handed over, or {0} when the owner held no hold.
   */
  private CompletableFuture<List<Object>> releaseTo(String owner, int heldBefore, HandOffTerms to) {
    return scripts.run(
        DriverScripts.FAIR_RELEASE,
        new String[] {keys.lock(), keys.key("queue"), keys.key("beats"), keys.fence()},
        owner,
        Integer.toString(heldBefore),
        keys.channel(),
        to == null ? "" : to.owner(),
        Long.toString(to == null ? 0 : to.leaseMillis()),
        to == null ? "" : to.acquisitionId(),
        scripts.fenceTerms());
  }

  /** Parses a release that did not hand the lock over: the head named in it is woken alone. */
  private static Release parseRelease(List<Object> reply) {
    if (!Scripts.succeeded(reply)) {
      return new Release(false, 0, WakeMessage.ONE);
    }
    String head = String.valueOf(reply.get(2));
    return new Release(
        true,
        (int) Scripts.number(reply, 1),
        head.isEmpty() ? WakeMessage.ONE : WakeMessage.only(head));
  }

  @Override
  public CompletableFuture<?> leave(String owner) {
    tickets.remove(owner);
    return scripts.run(
        DriverScripts.FAIR_LEAVE,
        new String[] {keys.lock(), keys.key("queue"), keys.key("beats")},
        owner,
        keys.channel());
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
