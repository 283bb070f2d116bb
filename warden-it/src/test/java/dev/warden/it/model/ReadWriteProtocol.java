package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.internal.base.Settings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The read-write lock's script calls, as {@code ReadDriver} and {@code WriteDriver} send them
 * (rw-read-*, rw-write-*, rw-writer-leave), for its two sides over one set of keys.
 */
final class ReadWriteProtocol {
  private final Wire wire;
  private final String name;
  private final String base;
  final Write write = new Write();
  final Read read = new Read();

  ReadWriteProtocol(Wire wire, String name) {
    this.wire = wire;
    this.name = name;
    this.base = "warden:{" + name + "}:rw";
  }

  private String key(String suffix) {
    return base + ":" + suffix;
  }

  private List<String> acquireKeys() {
    return List.of(
        key("write"), key("reads"), key("readers"), key("writers"), key("fence"), key("wanted"));
  }

  List<String> keys() {
    return List.of(
        key("write"), key("reads"), key("readers"), key("writers"), key("fence"), key("wanted"));
  }

  /** The write side. */
  final class Write implements LockSide {
    @Override
    public String describe() {
      return "write lock " + name;
    }

    @Override
    public String fence() {
      return key("fence");
    }

    @Override
    public List<String> keys() {
      return ReadWriteProtocol.this.keys();
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
              acquisitionId);
      return ReentrantProtocol.attempt(reply);
    }

    @Override
    public Release release(String owner, int heldBefore) {
      List<Object> reply =
          wire.run(
              "rw-write-release",
              List.of(key("write"), key("wanted")),
              owner,
              Integer.toString(heldBefore),
              key("released"));
      return number(reply, 0) == 1
          ? new Release(true, (int) number(reply, 1))
          : new Release(false, 0);
    }

    @Override
    public void leave(String owner) {
      wire.run("rw-writer-leave", List.of(key("writers"), key("wanted")), owner, key("released"));
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
    public List<String> keys() {
      return ReadWriteProtocol.this.keys();
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
    public Release release(String owner, int heldBefore) {
      List<Object> reply =
          wire.run(
              "rw-read-release",
              List.of(key("reads"), key("readers"), key("wanted")),
              owner,
              Integer.toString(heldBefore),
              key("released"));
      return number(reply, 0) == 1
          ? new Release(true, (int) number(reply, 1))
          : new Release(false, 0);
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
