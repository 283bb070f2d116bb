package dev.warden.internal;

import dev.warden.LockInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a reentrant lock's whole state in one script call, for {@code Warden.inspect}. */
final class LockInspector {
  private LockInspector() {}

  /** Returns holders, hold counts, time to live, tokens and waiting clients of the lock. */
  static LockInfo inspect(WardenRuntime runtime, LockKeys keys) {
    List<Object> reply =
        Futures.awaitUninterruptibly(
            runtime
                .scripts()
                .run(Scripts.LOCK_INSPECT, new String[] {keys.lock(), keys.fence()}),
            keys.describe(),
            "inspect");
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
    Long waiting =
        Futures.awaitUninterruptibly(
                runtime.redis().pubsubNumsub(keys.channel()).toCompletableFuture(),
                keys.describe(),
                "inspect")
            .getOrDefault(keys.channel(), 0L);
    return new LockInfo(keys.name(), keys.lock(), holders, ttl, currentToken, lastToken, waiting);
  }
}
