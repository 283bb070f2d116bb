package dev.warden.it.model;

import dev.warden.Warden;
import dev.warden.internal.base.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reentrant lock's script calls, as {@code ReentrantDriver} sends them (lock-acquire,
 * lock-release for releases and give-backs, lock-transfer, lock-renew), with the same arguments in
 * the same order.
 */
final class ReentrantProtocol implements LockSide {
  static final String FENCE_TERMS = Settings.FENCE_RETENTION_MILLIS + ":0";

  /** How long a release marker lives, as the drivers send it at the default command timeout. */
  static final String MARKER_MILLIS =
      new Settings(Duration.ofSeconds(30), Warden.DEFAULT_COMMAND_TIMEOUT, Duration.ofSeconds(1))
          .operationMarkerArgument();

  private final Wire wire;
  private final String name;
  private final String lock;
  private final String fence;
  private final String channel;
  private long handedToken = -1;
  private boolean othersWaitFar;
  private final List<Grant> grants = new ArrayList<>();

  ReentrantProtocol(Wire wire, String name) {
    this.wire = wire;
    this.name = name;
    this.lock = "warden:{" + name + "}:lock";
    this.fence = lock + ":fence";
    this.channel = lock + ":released";
  }

  String key() {
    return lock;
  }

  @Override
  public String describe() {
    return "lock " + name;
  }

  @Override
  public String fence() {
    return fence;
  }

  @Override
  public boolean handsOff() {
    return true;
  }

  static String client(String owner) {
    return owner.substring(0, owner.indexOf(':') + 1);
  }

  @Override
  public Attempt acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long lease,
      boolean othersWait,
      boolean willWait) {
    List<Object> reply =
        wire.run(
            "lock-acquire",
            List.of(lock, fence),
            owner,
            Long.toString(lease),
            Integer.toString(heldBefore),
            othersWait ? "1" : "0",
            FENCE_TERMS,
            acquisitionId,
            client(owner),
            willWait ? "1" : "0",
            // a first acquisition that waits registers for a direct grant (MutexClaim.grantable:
            // the model's holds all have the watchdog lease)
            willWait && heldBefore == 0 ? "1" : "0");
    return attempt(reply);
  }

  static Attempt attempt(List<Object> reply) {
    return number(reply, 0) == 1
        ? new Attempt(1, number(reply, 1), (int) number(reply, 2))
        : new Attempt((int) number(reply, 0), -1, 0);
  }

  @Override
  public Release lower(String owner, int count, String undo, String releaseId) {
    return lower(owner, count, false, undo, releaseId);
  }

  @Override
  public Release releaseYielding(String owner, String releaseId) {
    return lower(owner, 1, true, "", releaseId);
  }

  /** The release marker of an owner's releases of a lock ({@code LockKeys.releaseMarker}). */
  static String marker(String lock, String owner) {
    return lock + ":unlocked:" + owner;
  }

  @Override
  public Release giveBackGrant(String owner, String acquisitionId, long token) {
    return lower(owner, 0, false, acquisitionId, "", Long.toString(token));
  }

  @Override
  public List<Grant> takeGrants() {
    List<Grant> made = List.copyOf(grants);
    grants.clear();
    return made;
  }

  /** lock-release as the driver sends it; {@code yielding}: a full row of hand-offs ends. */
  private Release lower(String owner, int count, boolean yielding, String undo, String releaseId) {
    return lower(owner, count, yielding, undo, releaseId, "");
  }

  private Release lower(
      String owner, int count, boolean yielding, String undo, String releaseId, String grantToken) {
    List<Object> reply =
        wire.run(
            "lock-release",
            List.of(lock, marker(lock, owner), fence),
            owner,
            Integer.toString(count),
            channel,
            "released " + client(owner).replace(":", ""),
            yielding ? "1" : "0",
            Long.toString(Settings.CROSS_CLIENT_TURN_MILLIS),
            Long.toString(Settings.CROSS_CLIENT_RESERVATION_MILLIS),
            Long.toString(Settings.NOMINATED_LOCK_MILLIS),
            undo,
            releaseId,
            MARKER_MILLIS,
            Long.toString(Settings.GRANT_LEASE_MILLIS),
            FENCE_TERMS,
            grantToken);
    if (reply.size() > 2 && number(reply, 2) == 1) {
      // a direct grant: its message names the waiter's acquisition and the token
      Map<String, Integer> holders = holds();
      String to = holders.keySet().iterator().next();
      grants.add(
          new Grant(to, wire.redis.hget(lock, "#a"), Long.parseLong(wire.redis.hget(lock, "#t"))));
    }
    return released(reply);
  }

  /** A release script's {1, remaining, ...} or {0}. */
  static Release released(List<Object> reply) {
    return number(reply, 0) == 1
        ? new Release(true, (int) number(reply, 1))
        : new Release(false, 0);
  }

  @Override
  public HandOff releaseTo(String owner, Terms to, String releaseId) {
    List<Object> reply =
        wire.run(
            "lock-transfer",
            List.of(lock, fence, marker(lock, owner)),
            owner,
            to.owner(),
            Long.toString(to.lease()),
            to.acquisitionId(),
            FENCE_TERMS,
            releaseId,
            MARKER_MILLIS);
    if (number(reply, 0) == 1) {
      handedToken = number(reply, 1);
      othersWaitFar = number(reply, 2) == 1;
      return HandOff.HANDED;
    }
    return HandOff.NOT_HELD;
  }

  @Override
  public long token() {
    return handedToken;
  }

  @Override
  public boolean othersWaitFar() {
    return othersWaitFar;
  }

  @Override
  public List<String> renew(List<String> owners, long lease) {
    return renewHashes(wire, lock, owners, lease);
  }

  /** lock-renew for holds of one lock hash, as the lease keeper batches them. */
  static List<String> renewHashes(Wire wire, String hash, List<String> owners, long lease) {
    if (owners.isEmpty()) {
      return List.of();
    }
    List<String> keys = new ArrayList<>();
    String[] args = new String[owners.size() + 1];
    args[0] = Long.toString(lease);
    for (int i = 0; i < owners.size(); i++) {
      keys.add(hash);
      args[i + 1] = owners.get(i);
    }
    List<Object> lost = wire.run("lock-renew", keys, args);
    List<String> notRenewed = new ArrayList<>();
    for (Object index : lost) {
      notRenewed.add(owners.get(Integer.parseInt(String.valueOf(index)) - 1));
    }
    return notRenewed;
  }

  @Override
  public Map<String, Integer> holds() {
    return hashHolds(wire, lock);
  }

  /** The owners' counts in a lock hash (fields not starting with '#'). */
  static Map<String, Integer> hashHolds(Wire wire, String hash) {
    Map<String, Integer> holds = new HashMap<>();
    wire.redis
        .hgetall(hash)
        .forEach(
            (field, value) -> {
              if (!field.startsWith("#")) {
                holds.put(field, Integer.parseInt(value));
              }
            });
    return holds;
  }

  @Override
  public long expiresAt(String owner) {
    return wire.redis.hexists(lock, owner) ? wire.redis.pexpiretime(lock) : -1;
  }

  @Override
  public void expire(String owner) {
    wire.expireNow(lock);
  }

  static long number(List<Object> reply, int index) {
    return Long.parseLong(String.valueOf(reply.get(index)));
  }
}
