package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.internal.base.Settings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair lock's script calls, as {@code FairDriver} sends them (fair-acquire, fair-release,
 * fair-leave, lock-renew), including the tickets the driver keeps for its waiters between attempts
 * and forgets when they leave.
 */
final class FairProtocol implements LockSide {
  private final Wire wire;
  private final String name;
  private final String lock;
  private final String fence;
  private final String channel;
  private final Map<String, Long> tickets = new HashMap<>();
  private long handedToken = -1;

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
  public List<String> keys() {
    return List.of(lock, fence, queue(), lock + ":beats", lock + ":tickets");
  }

  @Override
  public boolean handsOff() {
    return true;
  }

  /** The ticket the driver keeps for a waiter, or null. */
  Long ticket(String owner) {
    return tickets.get(owner);
  }

  @Override
  public Attempt acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long lease,
      boolean othersWait,
      boolean willWait) {
    Long ticket = tickets.get(owner);
    List<Object> reply =
        wire.run(
            "fair-acquire",
            List.of(lock, fence, queue(), lock + ":beats", lock + ":tickets"),
            owner,
            Long.toString(lease),
            Integer.toString(heldBefore),
            FENCE_TERMS,
            willWait ? "1" : "0",
            Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS),
            ticket == null ? "" : Long.toString(ticket),
            channel,
            acquisitionId);
    if (number(reply, 0) == 1) {
      tickets.remove(owner);
      return new Attempt(1, number(reply, 1), (int) number(reply, 2));
    }
    long given = number(reply, 2);
    if (given >= 0) {
      tickets.put(owner, given);
    }
    return new Attempt(0, -1, 0);
  }

  private List<Object> releaseTo(String owner, int heldBefore, Terms to) {
    return wire.run(
        "fair-release",
        List.of(lock, queue(), lock + ":beats", fence),
        owner,
        Integer.toString(heldBefore),
        channel,
        to == null ? "" : to.owner(),
        Long.toString(to == null ? 0 : to.lease()),
        to == null ? "" : to.acquisitionId(),
        FENCE_TERMS);
  }

  @Override
  public Release release(String owner, int heldBefore) {
    List<Object> reply = releaseTo(owner, heldBefore, null);
    return number(reply, 0) == 1
        ? new Release(true, (int) number(reply, 1))
        : new Release(false, 0);
  }

  @Override
  public HandOff releaseTo(String owner, Terms to) {
    List<Object> reply = releaseTo(owner, 1, to);
    if (number(reply, 0) != 1) {
      return HandOff.LOST;
    }
    if (reply.size() > 3) {
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
  public void leave(String owner) {
    tickets.remove(owner);
    wire.run("fair-leave", List.of(lock, queue(), lock + ":beats"), owner, channel);
  }

  @Override
  public void forget(String owner) {
    tickets.remove(owner);
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
