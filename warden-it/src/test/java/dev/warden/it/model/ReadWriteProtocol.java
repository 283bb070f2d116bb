package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.MARKER_MILLIS;

import dev.warden.internal.base.Settings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The read-write lock's script calls, as {@code ReadDriver} and {@code WriteDriver} send them
 * (rw-read-*, rw-write-*, rw-writer-leave), for its two sides over one set of keys. The write side
 * sends the read holds its client knows the owner has ({@code readHolds}), as {@code
 * RedisReadWriteLock} gives them to {@code WriteDriver}.
 */
final class ReadWriteProtocol {
  private final Wire wire;
  private final String name;
  private final String base;
  final Write write = new Write();
  final Read read = new Read();
  private ToIntFunction<String> readHolds = owner -> 0;

  ReadWriteProtocol(Wire wire, String name) {
    this.wire = wire;
    this.name = name;
    this.base = "warden:{" + name + "}:rw";
  }

  /** Where the write side learns the read holds the client knows an owner has (not lost). */
  void readHolds(ToIntFunction<String> readHolds) {
    this.readHolds = readHolds;
  }

  private String key(String suffix) {
    return base + ":" + suffix;
  }

  private List<String> acquireKeys() {
    return List.of(
        key("write"), key("reads"), key("readers"), key("writers"), key("fence"), key("wanted"));
  }

  /** The write side. */
  final class Write implements LockSide {
    private final Map<String, Long> waiting = new HashMap<>(); // owner/acquisition -> its beat

    @Override
    public String describe() {
      return "write lock " + name;
    }

    @Override
    public String fence() {
      return key("fence");
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
              "rw-write-acquire",
              acquireKeys(),
              owner,
              Long.toString(lease),
              Integer.toString(heldBefore),
              FENCE_TERMS,
              willWait ? "1" : "0",
              Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS),
              acquisitionId,
              Integer.toString(readHolds.applyAsInt(owner)));
      if (willWait && ReentrantProtocol.number(reply, 0) == 0) {
        // registered as a waiting writer until its heartbeat deadline (for the queue invariant)
        waiting.put(
            owner + "/" + acquisitionId, wire.serverMillis() + Settings.HEARTBEAT_TIMEOUT_MILLIS);
      }
      return ReentrantProtocol.attempt(reply);
    }

    @Override
    public Release lower(String owner, int count, String undo, String releaseId) {
      return lower(owner, count, undo, releaseId, "");
    }

    @Override
    public Release dropLost(String owner, long token) {
      return lower(owner, 1, "", "", Long.toString(token));
    }

    private Release lower(String owner, int count, String undo, String releaseId, String token) {
      return ReentrantProtocol.released(
          wire.run(
              "rw-write-release",
              List.of(key("write"), key("wanted"), ReentrantProtocol.marker(key("write"), owner)),
              owner,
              Integer.toString(count),
              key("released"),
              undo,
              releaseId,
              MARKER_MILLIS,
              token));
    }

    @Override
    public Runnable leave(String owner, String acquisitionId) {
      return () ->
          wire.run(
              "rw-writer-leave",
              List.of(key("writers"), key("wanted")),
              owner,
              key("released"),
              acquisitionId);
    }

    @Override
    public boolean queued(String owner, String acquisitionId) {
      Long beat = waiting.get(owner + "/" + acquisitionId);
      return beat == null
          || beat <= wire.serverMillis()
          || wire.redis.zscore(key("writers"), owner + "/" + acquisitionId) != null;
    }

    @Override
    public void forget(String owner, String acquisitionId) {
      waiting.remove(owner + "/" + acquisitionId);
    }

    @Override
    public List<String> renew(List<String> owners, long lease) {
      return ReentrantProtocol.renewHashes(wire, key("write"), owners, lease);
    }

    @Override
    public Map<String, Integer> holds() {
      return ReentrantProtocol.hashHolds(wire, key("write"));
    }

    @Override
    public long expiresAt(String owner) {
      return wire.redis.hexists(key("write"), owner) ? wire.redis.pexpiretime(key("write")) : -1;
    }

    @Override
    public void expire(String owner) {
      wire.expireNow(key("write"));
    }
  }

  /** The read side: each reader's lease is its deadline in the readers' sorted set. */
  final class Read implements LockSide {
    @Override
    public String describe() {
      return "read lock " + name;
    }

    @Override
    public String fence() {
      return key("fence");
    }

    @Override
    public boolean exclusive() {
      return false;
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
              "rw-read-acquire",
              acquireKeys(),
              owner,
              Long.toString(lease),
              Integer.toString(heldBefore),
              FENCE_TERMS,
              acquisitionId);
      return ReentrantProtocol.attempt(reply);
    }

    @Override
    public Release lower(String owner, int count, String undo, String releaseId) {
      return lower(owner, count, undo, releaseId, "");
    }

    @Override
    public Release dropLost(String owner, long token) {
      return lower(owner, 1, "", "", Long.toString(token));
    }

    private Release lower(String owner, int count, String undo, String releaseId, String token) {
      return ReentrantProtocol.released(
          wire.run(
              "rw-read-release",
              List.of(
                  key("reads"),
                  key("readers"),
                  key("wanted"),
                  ReentrantProtocol.marker(key("reads"), owner)),
              owner,
              Integer.toString(count),
              key("released"),
              undo,
              releaseId,
              MARKER_MILLIS,
              token));
    }

    @Override
    public List<String> renew(List<String> owners, long lease) {
      if (owners.isEmpty()) {
        return List.of();
      }
      List<String> keys = new ArrayList<>();
      String[] args = new String[owners.size() + 1];
      args[0] = Long.toString(lease);
      for (int i = 0; i < owners.size(); i++) {
        keys.add(key("reads"));
        keys.add(key("readers"));
        args[i + 1] = owners.get(i);
      }
      List<String> lost = new ArrayList<>();
      for (Object index : wire.run("rw-read-renew", keys, args)) {
        lost.add(owners.get(Integer.parseInt(String.valueOf(index)) - 1));
      }
      return lost;
    }

    @Override
    public Map<String, Integer> holds() {
      long now = wire.serverMillis();
      Map<String, Integer> live = new HashMap<>();
      wire.redis
          .hgetall(key("reads"))
          .forEach(
              (field, count) -> {
                if (field.startsWith("t:") || field.startsWith("a:")) {
                  return;
                }
                Double deadline = wire.redis.zscore(key("readers"), field);
                if (deadline != null && deadline > now) {
                  live.put(field, Integer.parseInt(count));
                }
              });
      return live;
    }

    @Override
    public long expiresAt(String owner) {
      Double deadline = wire.redis.zscore(key("readers"), owner);
      return deadline == null ? -1 : deadline.longValue();
    }

    @Override
    public void expire(String owner) {
      wire.endDeadline(key("readers"), owner);
    }
  }
}
