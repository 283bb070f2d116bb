package dev.warden.internal.lock.driver;

import dev.warden.LockInfo;
import dev.warden.ObjectType;
import dev.warden.internal.base.Owners;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.HandOffTerms;
import dev.warden.internal.wait.SharedWait;
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
 *
 * <p>Between clients: a last release gives the lock to the next listed client's registered waiter
 * in the same script (a direct grant, lock-release.lua's 'Grants'), whose client completes the
 * acquisition from the message; where it cannot (nobody listens there, no waiter registered, the
 * client wake-up mode), it nominates that client as before. CONCURRENCY.md, "Direct grants".
 */
public final class ReentrantDriver implements LockDriver {
  private final Scripts scripts;
  private final String ownerPrefix;
  private static final String RESERVATION = Long.toString(Settings.CROSS_CLIENT_RESERVATION_MILLIS);
  private static final String TURN = Long.toString(Settings.CROSS_CLIENT_TURN_MILLIS);
  private static final String NOMINATED_LIFE = Long.toString(Settings.NOMINATED_LOCK_MILLIS);
  private static final String GRANT_LEASE = Long.toString(Settings.GRANT_LEASE_MILLIS);
  private final String releaseMessage;
  private final LockKeys keys;
  private final Parts parts;
  private final String markerMillis;

  /**
   * @param markerMillis how long a release's marker lives, in ms, as a script argument (see {@link
   *     #release(String, int, String)})
   */
  public ReentrantDriver(Scripts scripts, Owners owners, LockKeys keys, String markerMillis) {
    this.scripts = scripts;
    this.markerMillis = markerMillis;
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

  /**
   * A refusal of one of this client's first acquisitions stands for all of them (another client
   * holds the lock, or has its turn), and a release of this client hands over or wakes the next:
   * they share one re-check per interval.
   */
  @Override
  public SharedWait sharedWait() {
    return SharedWait.RECHECKS;
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
    return send(owner, acquisitionId, heldBefore, leaseMillis, othersWait, willWait, "0", "", false)
        .thenApply(Replies::attempt);
  }

  /**
   * Tries once, passing the hint's arguments: an attempt after a refusal skips the EXISTS, and a
   * refusal by the holder whose lease the hint knows has not ended does not read its PTTL (see
   * lock-acquire.lua's "Hints"); the reply of a refusal teaches the hint. {@code registers}: a
   * refusal by another client's holder registers the owner as this client's waiter for a direct
   * grant (ARGV[11]); the caller asks it only where {@link #grantsDirectly()}.
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
    long sentAt = hint.now();
    hint.sentUnder(scripts.fenceTerms());
    return send(
            owner,
            acquisitionId,
            heldBefore,
            leaseMillis,
            othersWait,
            willWait,
            hint.refusedArgument(),
            hint.holderArgument(),
            registers)
        .thenApply(
            reply ->
                Scripts.succeeded(reply)
                    ? Replies.attempt(reply)
                    : Attempt.busy(hint.refusedBy(reply, sentAt)));
  }

  private CompletableFuture<List<Object>> send(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait,
      String refusedBefore,
      String knownHolder,
      boolean registers) {
    return scripts.run(
        DriverScripts.LOCK_ACQUIRE,
        new String[] {keys.lock(), keys.fence()},
        owner,
        Long.toString(leaseMillis),
        Integer.toString(heldBefore),
        othersWait ? "1" : "0",
        scripts.fenceTerms(),
        acquisitionId,
        ownerPrefix,
        willWait ? "1" : "0",
        refusedBefore,
        knownHolder,
        registers ? "1" : "0");
  }

  @Override
  public CompletableFuture<Release> lower(String owner, int count, String undo, String releaseId) {
    return release(owner, count, false, undo, releaseId, "");
  }

  @Override
  public CompletableFuture<Release> dropLost(String owner, long token) {
    return release(owner, 1, false, "", "", Long.toString(token));
  }

  @Override
  public boolean grantsDirectly() {
    return !scripts.clientPublishes(); // the recording twins grant nothing (lock-release.lua)
  }

  @Override
  public CompletableFuture<Release> giveBackGrant(String owner, String acquisitionId, long token) {
    return release(owner, 0, false, acquisitionId, "", Long.toString(token));
  }

  /**
   * Releases one hold, or gives back acquisition {@code undo} (lock-release.lua). A last release
   * nominates the first client whose waiters a holder of another client refused, if any, and only
   * that client wakes a waiter; {@code yielding}: the release ends a full row of hand-offs while
   * another client's waiter waits, so when no client is listed the lock is kept from this client
   * for a moment. A last release may instead grant the lock directly to that client's registered
   * waiter (lock-release.lua's 'Grants'), for {@link Settings#GRANT_LEASE_MILLIS} until it
   * confirms; {@code token}: the token the owner's hold must still have (the give-back of a grant,
   * the drop of a lost hold), or '' for none.
   */
  private CompletableFuture<Release> release(
      String owner, int count, boolean yielding, String undo, String releaseId, String token) {
    return scripts
        .run(
            DriverScripts.LOCK_RELEASE,
            !token.isEmpty(), // a drop, a grant's give-back: rare, must run when sent (Scripts.run)
            new String[] {keys.lock(), keys.releaseMarker(owner), keys.fence()},
            owner,
            Integer.toString(count),
            keys.channel(),
            releaseMessage,
            yielding ? "1" : "0",
            TURN,
            RESERVATION,
            NOMINATED_LIFE,
            undo,
            releaseId,
            markerMillis,
            GRANT_LEASE,
            scripts.fenceTerms(),
            token)
        .thenApply(reply -> Replies.release(reply, WakeMessage.ONE));
  }

  /**
   * Hands the last hold to this client's next parked waiter (lock-transfer.lua, whose reply is {1,
   * token, othersWait} when handed over, {0} when the owner held no hold); when it cannot, releases
   * as usual. A transfer whose outcome is unknown may have given the waiter the lock: the waiter is
   * told so ({@link Successors.Candidate#inDoubt()}), and gives it back if it no longer wants it.
   */
  @Override
  public CompletableFuture<Release> releaseLast(
      String owner, String releaseId, Successors successors) {
    Successors.Candidate next = successors.next();
    if (next == null) {
      return release(owner, 1, successors.yielding(), "", releaseId, "");
    }
    HandOffTerms to = next.terms();
    return scripts
        .run(
            DriverScripts.LOCK_TRANSFER,
            new String[] {keys.lock(), keys.fence(), keys.releaseMarker(owner)},
            owner,
            to.owner(),
            Long.toString(to.leaseMillis()),
            to.acquisitionId(),
            scripts.fenceTerms(),
            releaseId,
            markerMillis)
        .handle(
            (reply, failure) -> {
              if (failure != null) {
                // it may have run: then the waiter holds the lock, and the release that follows
                // (or its retry) finds this owner's hold ended by this release
                next.inDoubt();
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              if (Scripts.succeeded(reply)) {
                next.handedOver(Scripts.number(reply, 1), Scripts.number(reply, 2) == 1);
                return true;
              }
              next.declined(); // this owner held nothing: nothing was handed over
              return false;
            })
        .thenCompose(
            handedOver ->
                handedOver
                    ? CompletableFuture.completedFuture(Release.HANDED_OVER)
                    : release(owner, 1, false, "", releaseId, ""));
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
