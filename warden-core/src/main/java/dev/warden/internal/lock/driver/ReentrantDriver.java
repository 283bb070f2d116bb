package dev.warden.internal.lock.driver;

import dev.warden.LockInfo;
import dev.warden.ObjectType;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.WakeMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The reentrant lock's data and scripts: lock-*.lua on a hash of owner to hold count (fields: see
 * lock-acquire.lua's header).
 *
 * <p>Hand-off: a release of the last hold offers the lock to this client's longest-parked waiter
 * and gives it over in one script call (lock-transfer.lua: a new fencing token, the waiter's
 * lease), instead of a release and an acquisition. While no waiter a hand-off cannot reach was
 * refused, every such release is a hand-off; see {@link Successors#next()} for the cap otherwise.
 */
public final class ReentrantDriver implements LockDriver {
  private final Scripts scripts;
  private final String ownerPrefix;
  private static final String RESERVATION = Long.toString(Settings.CROSS_CLIENT_RESERVATION_MILLIS);
  private static final String TURN = Long.toString(Settings.CROSS_CLIENT_TURN_MILLIS);
  private static final String NOMINATED_LIFE = Long.toString(Settings.NOMINATED_LOCK_MILLIS);
  private final String releaseMessage;
  private final LockKeys keys;
  private final Parts parts;

  public ReentrantDriver(Scripts scripts, Owners owners, LockKeys keys) {
    this.scripts = scripts;
    this.ownerPrefix = owners.prefix();
    this.releaseMessage = WakeMessage.released(owners.clientId());
    this.keys = keys;
    this.parts =
        new Parts(
            keys,
            new Renewal(DriverScripts.LOCK_RENEW, List.of(keys.lock())),
            new HashQueries(scripts.redis(), keys.lock()),
            new Subject(ObjectType.LOCK, keys.name()));
  }

  @Override
  public Parts parts() {
    return parts;
  }

  @Override
  public boolean waitsForLocalHolder() {
    return true;
  }

  @Override
  public boolean joinsGroups() {
    return true;
  }

  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait) {
    return scripts
        .run(
            DriverScripts.LOCK_ACQUIRE,
            new String[] {keys.lock(), keys.fence()},
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            othersWait ? "1" : "0",
            scripts.fenceTerms(),
            acquisitionId,
            ownerPrefix,
            willWait ? "1" : "0")
        .thenApply(Replies::attempt);
  }

  @Override
  public CompletableFuture<Release> release(String owner, int heldBefore) {
    return release(owner, heldBefore, false);
  }

  /**
   * Releases one hold. A last release nominates the first client whose waiters a holder of another
   * client refused, if any, and only that client wakes a waiter (lock-release.lua); {@code
   * yielding}: the release ends a full row of hand-offs while another client's waiter waits, so
   * when no client is listed the lock is kept from this client for a moment.
   */
  private CompletableFuture<Release> release(String owner, int heldBefore, boolean yielding) {
    return scripts
        .run(
            DriverScripts.LOCK_RELEASE,
            new String[] {keys.lock()},
            owner,
            Integer.toString(heldBefore),
            keys.channel(),
            releaseMessage,
            yielding ? "1" : "0",
            TURN,
            RESERVATION,
            NOMINATED_LIFE)
        .thenApply(reply -> Replies.release(reply, WakeMessage.ONE));
  }

  /**
   * Hands the last hold to this client's next parked waiter (lock-transfer.lua, whose reply is {1,
   * token, othersWait} when handed over, {0} when the owner held no hold, {2} when it held more
   * than one); when it cannot, releases as usual.
   */
  @Override
  public CompletableFuture<Release> releaseLast(String owner, Successors successors) {
    Successors.Candidate next = successors.next();
    if (next == null) {
      return release(owner, 1, successors.yielding());
    }
    HandOffTerms to = next.terms();
    return scripts
        .run(
            DriverScripts.LOCK_TRANSFER,
            new String[] {keys.lock(), keys.fence()},
            owner,
            to.owner(),
            Long.toString(to.leaseMillis()),
            to.acquisitionId(),
            scripts.fenceTerms())
        .handle(
            (reply, failure) -> {
              if (failure == null && Scripts.succeeded(reply)) {
                next.handedOver(Scripts.number(reply, 1), Scripts.number(reply, 2) == 1);
                return true;
              }
              // it may have run: then the waiter's own attempt finds the hold it was given, and
              // the release that follows (or its retry) finds this owner's hold gone
              next.declined();
              if (failure != null) {
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              return false;
            })
        .thenCompose(
            handedOver ->
                handedOver
                    ? CompletableFuture.completedFuture(Release.HANDED_OVER)
                    : release(owner, 1));
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(DriverScripts.LOCK_FORCE_RELEASE, new String[] {keys.lock()}, keys.channel())
        .thenApply(Scripts::succeeded);
  }

  /**
   * Reads the lock's whole state in one script call, plus the number of clients subscribed to its
   * channel: holders, hold counts, time to live, tokens, waiting clients.
   */
  public CompletableFuture<LockInfo> inspect() {
    CompletableFuture<List<Object>> state =
        scripts.run(DriverScripts.LOCK_INSPECT, new String[] {keys.lock(), keys.fence()});
    CompletableFuture<Map<String, Long>> waiting =
        scripts
            .redis()
            .command(
                keys.lock(),
                // a cluster's wake-ups are sharded: count them on the channel's own node
                r ->
                    scripts.redis().shardedPubSub()
                        ? r.pubsubShardNumsub(keys.channel())
                        : r.pubsubNumsub(keys.channel()));
    return state.thenCombine(waiting, this::lockInfo);
  }

  private LockInfo lockInfo(List<Object> reply, Map<String, Long> subscribers) {
    long ttl = Scripts.number(reply, 0);
    long lastToken = Scripts.number(reply, 1);
    Map<String, Integer> holders = new LinkedHashMap<>();
    long currentToken = -1;
    for (int i = 2; i + 1 < reply.size(); i += 2) {
      String field = String.valueOf(reply.get(i));
      String value = String.valueOf(reply.get(i + 1));
      if (field.equals("#t")) {
        currentToken = Long.parseLong(value);
      } else if (!field.startsWith("#")) {
        holders.put(field, Integer.parseInt(value));
      }
    }
    long waiting = subscribers.getOrDefault(keys.channel(), 0L);
    return new LockInfo(keys.name(), keys.lock(), holders, ttl, currentToken, lastToken, waiting);
  }
}
