package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.MARKER_MILLIS;
import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.internal.base.Settings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair lock's script calls, as {@code FairDriver} sends them (fair-acquire, fair-release for
 * releases, hand-offs, direct grants and give-backs, fair-leave by acquisition id, lock-renew),
 * including the tickets the driver keeps for its waiting acquisitions between attempts, by
 * acquisition id, and forgets when they end. Every first acquisition that waits takes direct grants
 * (the model's holds all have the watchdog lease), as {@code MutexClaim.grantable}.
 */
final class FairProtocol implements LockSide {
  private final Wire wire;
  private final String name;
  private final String lock;
  private final String fence;
  private final String channel;
  private final Map<String, Long> tickets = new HashMap<>(); // by client and acquisition id
  private long handedToken = -1;
  private final List<Grant> grants = new ArrayList<>();

  FairProtocol(Wire wire, String name) {
    this.wire = wire;
    this.name = name;
    this.lock = "warden:{" + name + "}:fair";
    this.fence = lock + ":fence";
    this.channel = lock + ":released";
  }

  @Override
  public String describe() {
    return "fair lock " + name;
  }

  @Override
  public String fence() {
    return fence;
  }

  String queue() {
    return lock + ":queue";
  }

  @Override
  public boolean handsOff() {
    return true;
  }

  @Override
  public Attempt acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long lease,
      boolean othersWait,
      boolean willWait) {
    Long ticket = tickets.get(ReentrantProtocol.client(owner) + acquisitionId);
    List<Object> reply =
        wire.run(
            "fair-acquire",
            List.of(lock, fence, queue(), lock + ":beats", lock + ":tickets", lock + ":entries"),
            owner,
            Long.toString(lease),
            Integer.toString(heldBefore),
            FENCE_TERMS,
            willWait ? "1" : "0",
            Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS),
            ticket == null ? "" : Long.toString(ticket),
            channel,
            acquisitionId,
            willWait && heldBefore == 0 ? "1" : "0");
    if (number(reply, 0) == 1) {
      tickets.remove(ReentrantProtocol.client(owner) + acquisitionId);
      return new Attempt(1, number(reply, 1), (int) number(reply, 2));
    }
    long given = number(reply, 2);
    if (given >= 0) {
      tickets.put(ReentrantProtocol.client(owner) + acquisitionId, given);
    }
    return new Attempt(0, -1, 0);
  }

  private List<Object> releaseTo(String owner, int count, Terms to, String undo, String releaseId) {
    return releaseTo(owner, count, to, undo, releaseId, "");
  }

  private List<Object> releaseTo(
      String owner, int count, Terms to, String undo, String releaseId, String token) {
    List<Object> reply =
        wire.run(
            "fair-release",
            List.of(
                lock,
                queue(),
                lock + ":beats",
                fence,
                ReentrantProtocol.marker(lock, owner),
                lock + ":entries"),
            owner,
            Integer.toString(count),
            channel,
            to == null ? "" : to.owner(),
            Long.toString(to == null ? 0 : to.lease()),
            to == null ? "" : to.acquisitionId(),
            FENCE_TERMS,
            undo,
            releaseId,
            MARKER_MILLIS,
            token,
            Long.toString(Settings.GRANT_LEASE_MILLIS));
    if (reply.size() > 4) {
      // a direct grant to the head, another client's waiter: its message names its acquisition
      String head = String.valueOf(reply.get(2));
      grants.add(new Grant(head, wire.redis.hget(lock, "#a"), number(reply, 3)));
    }
    return reply;
  }

  @Override
  public Release giveBackGrant(String owner, String acquisitionId, long token) {
    return ReentrantProtocol.released(
        releaseTo(owner, 0, null, acquisitionId, "", Long.toString(token)));
  }

  @Override
  public List<Grant> takeGrants() {
    List<Grant> made = List.copyOf(grants);
    grants.clear();
    return made;
  }

  @Override
  public Release dropLost(String owner, long token) {
    return ReentrantProtocol.released(releaseTo(owner, 1, null, "", "", Long.toString(token)));
  }

  @Override
  public Release lower(String owner, int count, String undo, String releaseId) {
    return ReentrantProtocol.released(releaseTo(owner, count, null, undo, releaseId));
  }

  @Override
  public HandOff releaseTo(String owner, Terms to, String releaseId) {
    List<Object> reply = releaseTo(owner, 1, to, "", releaseId);
    if (number(reply, 0) != 1) {
      return HandOff.LOST;
    }
    if (reply.size() == 4) {
      handedToken = number(reply, 3);
      return HandOff.HANDED;
    }
    return HandOff.RELEASED;
  }

  @Override
  public long token() {
    return handedToken;
  }

  @Override
  public Runnable leave(String owner, String acquisitionId) {
    tickets.remove(ReentrantProtocol.client(owner) + acquisitionId);
    return () ->
        wire.run(
            "fair-leave",
            List.of(lock, queue(), lock + ":beats", lock + ":entries"),
            owner,
            channel,
            acquisitionId);
  }

  @Override
  public void forget(String owner, String acquisitionId) {
    tickets.remove(ReentrantProtocol.client(owner) + acquisitionId);
  }

  @Override
  public boolean queued(String owner, String acquisitionId) {
    Long ticket = tickets.get(ReentrantProtocol.client(owner) + acquisitionId);
    if (ticket == null) {
      return true; // never refused in the queue's sight: it has no entry yet
    }
    if (wire.redis.hexists(lock, owner) && acquisitionId.equals(wire.redis.hget(lock, "#a"))) {
      return true; // granted to it (fair-release's 'Grants'): its next attempt takes it
    }
    Double score = wire.redis.zscore(queue(), owner);
    Double beat = wire.redis.zscore(lock + ":beats", owner);
    return (score != null && score.longValue() == ticket)
        || (beat != null && beat <= wire.serverMillis());
  }

  @Override
  public List<String> renew(List<String> owners, long lease) {
    return ReentrantProtocol.renewHashes(wire, lock, owners, lease);
  }

  @Override
  public Map<String, Integer> holds() {
    return ReentrantProtocol.hashHolds(wire, lock);
  }

  @Override
  public long expiresAt(String owner) {
    return wire.redis.hexists(lock, owner) ? wire.redis.pexpiretime(lock) : -1;
  }

  @Override
  public void expire(String owner) {
    wire.expireNow(lock);
  }
}
