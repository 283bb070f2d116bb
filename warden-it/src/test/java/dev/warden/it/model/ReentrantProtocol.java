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
 *
 * <p>lock-acquire's hints ({@code RefusalHint}: refused before, and the token of the holder whose
 * lease the client knows has not ended) are random inputs here ({@link #hints}): as the client
 * sends them (with no time passing in the model, the last holder an acquisition heard of stays "not
 * ended", so the hint goes stale when that holder's lease runs out, it is rewound or handed on), or
 * wrong: "refused before" on a first attempt, the current holder's token the client never heard, a
 * token nobody holds. Each hinted call is first run without its hint and undone (the lock and its
 * fence put back), then run with it, and the two must agree on everything but when to ask again:
 * the reply's status, count and whether the token is new, and every field of the hash (violation
 * "hint").
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
  private int hints;
  // per client and acquisition id: what its refusals taught it (RefusalHint)
  private final Map<String, String> heardHolder = new HashMap<>();
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

  /**
   * Chooses the hints of the acquisitions that follow (until the next call): 0 none, 1 and 5 as the
   * client sends them, 2 "refused before" whatever the acquisition heard, 3 the current holder's
   * token, 4 a token nobody holds.
   */
  void hints(int kind) {
    hints = kind;
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
    String known = client(owner) + acquisitionId;
    String heard = heardHolder.get(known); // "" once refused without a holder's lease
    String refused = heard != null ? "1" : "0";
    String holder = heard != null ? heard : "";
    switch (hints) {
      case 0 -> {
        refused = "0";
        holder = "";
      }
      case 2 -> refused = "1";
      case 3 -> {
        String current = wire.redis.hget(lock, "#t");
        refused = "1";
        holder = current == null ? "" : current;
      }
      case 4 -> holder = "1";
      default -> {}
    }
    String[] args = {
      owner,
      Long.toString(lease),
      Integer.toString(heldBefore),
      othersWait ? "1" : "0",
      FENCE_TERMS,
      acquisitionId,
      client(owner),
      willWait ? "1" : "0",
      refused,
      holder,
      // a first acquisition that waits registers for a direct grant (MutexClaim.grantable: the
      // model's holds all have the watchdog lease)
      willWait && heldBefore == 0 ? "1" : "0"
    };
    List<Object> reference = null;
    Map<String, Wire.Saved> before = null;
    String tokenBefore = wire.redis.hget(lock, "#t");
    if (!refused.equals("0") || !holder.isEmpty()) {
      before = wire.save(List.of(lock, fence));
      String[] plain = args.clone();
      plain[8] = "0";
      plain[9] = "";
      reference = wire.probe("lock-acquire", List.of(lock, fence), plain);
      Map<String, String> referenceHash = withoutTokenValue(wire.redis.hgetall(lock));
      wire.putBack(before);
      List<Object> reply = wire.run("lock-acquire", List.of(lock, fence), args);
      agree(reference, referenceHash, reply, holder, tokenBefore);
      if (tokenBefore == null && before.get(lock) == null) {
        Coverage.hit("hinted acquisition of a missing lock hash");
      } else if (number(reply, 0) == 0 && number(reply, 1) == -2) {
        Coverage.hit("hinted refusal without PTTL");
      } else if (!holder.isEmpty() && !holder.equals(tokenBefore)) {
        Coverage.hit("stale or made-up holder hint");
      }
      return heard(known, reply);
    }
    return heard(known, wire.run("lock-acquire", List.of(lock, fence), args));
  }

  /** What the client learns from a reply (RefusalHint.refusedBy); the attempt it makes. */
  private Attempt heard(String known, List<Object> reply) {
    if (number(reply, 0) == 0) {
      long pttl = number(reply, 1);
      if (pttl != -2) {
        heardHolder.put(known, reply.size() > 2 && pttl >= 0 ? String.valueOf(reply.get(2)) : "");
      }
    }
    return attempt(reply);
  }

  /**
   * Checks that a hinted acquisition did what the same call without hints did (run first, then
   * undone): only when to ask again may differ.
   */
  private void agree(
      List<Object> plain,
      Map<String, String> plainHash,
      List<Object> hinted,
      String holder,
      String tokenBefore) {
    Map<String, String> hintedHash = withoutTokenValue(wire.redis.hgetall(lock));
    String differs = null;
    if (number(plain, 0) != number(hinted, 0)) {
      differs = "status";
    } else if (number(plain, 0) == 1
        && (number(plain, 2) != number(hinted, 2)
            || String.valueOf(plain.get(1)).equals(tokenBefore)
                != String.valueOf(hinted.get(1)).equals(tokenBefore))) {
      differs = "count or token";
    } else if (number(plain, 0) == 0
        && (number(hinted, 1) == -2)
            != (plain.size() > 2
                && holder.equals(plain.get(2))
                && !plainHash.containsKey("#e"))) { // a lease set shorter is read again
      differs = "whether the holder's lease was read";
    } else if (!plainHash.equals(hintedHash)) {
      differs = "hash";
    }
    if (differs != null) {
      throw new Violation(
          "hint",
          describe()
              + ": a hinted acquisition's "
              + differs
              + " differs from the same call's without hints: "
              + hinted
              + " "
              + hintedHash
              + ", without: "
              + plain
              + " "
              + plainHash);
    }
  }

  /** A lock hash's fields, with '#t' kept as present or not (a new token's value differs). */
  private static Map<String, String> withoutTokenValue(Map<String, String> hash) {
    Map<String, String> fields = new HashMap<>(hash);
    fields.computeIfPresent("#t", (field, token) -> "(token)");
    return fields;
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
  public Release dropLost(String owner, long token) {
    return lower(owner, 1, false, "", "", Long.toString(token));
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
  public void forget(String owner, String acquisitionId) {
    heardHolder.remove(client(owner) + acquisitionId);
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
