package dev.warden.it.model;

import dev.warden.internal.redis.Script;
import dev.warden.it.LuaScripts;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The model's line to one real redis-server: Warden's scripts, loaded as Warden loads them ({@link
 * Script}: the prelude, then the script's file) and run with EVALSHA, plus the plain commands the
 * faults need (DUMP, RESTORE, PEXPIREAT, ZADD). Every call that changes something is written to a
 * log in the form a human replays with redis-cli; queries made only to check invariants are not.
 *
 * <p>With {@code clientPublishes} ({@code WakeUps.FROM_CLIENT}) it runs each script's recording
 * twin ({@link Script#recording()}) instead, as {@code redis.Scripts} does in that mode: it checks
 * the twin's reply ({@code {recorded wake-ups, reply}}), PUBLISHes what the script recorded, and
 * hands on the script's own reply, so the model judges the replies a client in that mode sees.
 */
final class Wire implements AutoCloseable {
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> text;
  private final StatefulRedisConnection<byte[], byte[]> bytes;
  final RedisCommands<String, String> redis;
  private final Map<String, Script> scripts = new HashMap<>();
  private final List<String> log = new ArrayList<>();
  private final boolean clientPublishes;
  private long published;
  final Hearing hearing;

  Wire(String uri, boolean clientPublishes) {
    this.clientPublishes = clientPublishes;
    client = RedisClient.create(uri);
    text = client.connect();
    bytes = client.connect(ByteArrayCodec.INSTANCE);
    redis = text.sync();
    hearing = new Hearing(client, redis);
  }

  /** Runs one of Warden's scripts by name and returns its reply; logs the call and the reply. */
  List<Object> run(String name, List<String> keys, String... args) {
    Script script = scripts.computeIfAbsent(name, this::load);
    hearing.before(args);
    List<Object> reply =
        redis.evalsha(script.sha(), ScriptOutputType.MULTI, keys.toArray(String[]::new), args);
    List<String> published = List.of();
    if (clientPublishes) {
      published = recorded(name, reply);
      for (int i = 0; i < published.size(); i += 3) {
        String channel = published.get(i);
        String message = published.get(i + 1);
        String fallback = published.get(i + 2);
        long heard = redis.publish(channel, message);
        this.published++;
        // as redis.Scripts: the shared channel too when nobody subscribes the addressed one
        if (!fallback.isEmpty() && (heard == 0 || redis.pubsubNumsub(channel).get(channel) == 0)) {
          redis.publish(fallback, message);
          this.published++;
        }
      }
      reply = ownReply(name, reply);
    }
    log.add(
        "EVALSHA <"
            + name
            + "> "
            + keys.size()
            + " "
            + String.join(" ", keys)
            + (args.length == 0 ? "" : " " + String.join(" ", args))
            + "   -> "
            + reply
            + (published.isEmpty() ? "" : "   then PUBLISH (from the client) " + published));
    return reply;
  }

  /**
   * Runs a script that publishes nothing as {@link #run} does, without logging it: a reference run
   * that the caller undoes ({@link #save}, {@link #putBack}) before the logged one.
   */
  List<Object> probe(String name, List<String> keys, String... args) {
    Script script = scripts.computeIfAbsent(name, this::load);
    List<Object> reply =
        redis.evalsha(script.sha(), ScriptOutputType.MULTI, keys.toArray(String[]::new), args);
    return clientPublishes ? ownReply(name, reply) : reply;
  }

  /** These keys as they are now (a missing key saved as null), for {@link #putBack}. */
  Map<String, Saved> save(List<String> keys) {
    Map<String, Saved> saved = new HashMap<>();
    for (String key : keys) {
      byte[] value = bytes.sync().dump(utf8(key));
      Long at = redis.pexpiretime(key);
      saved.put(key, value == null ? null : new Saved(value, at == null || at < 0 ? 0 : at));
    }
    return saved;
  }

  /** Puts saved keys back as they were (unlogged: it undoes a {@link #probe}). */
  void putBack(Map<String, Saved> saved) {
    saved.forEach(
        (key, value) -> {
          redis.del(key);
          if (value != null) {
            RestoreArgs args = RestoreArgs.Builder.ttl(value.expiresAt()).replace();
            if (value.expiresAt() > 0) {
              args.absttl();
            }
            bytes.sync().restore(utf8(key), value.value(), args);
          }
        });
  }

  /** How many wake-ups this line published from the client (recorded by scripts' twins). */
  long published() {
    return published;
  }

  /**
   * The wake-ups a recording twin's reply lists first: channel, message, fallback channel or "",
   * ... (strings).
   */
  private static List<String> recorded(String name, List<Object> reply) {
    if (reply == null || reply.isEmpty() || !(reply.get(0) instanceof List<?> recorded)) {
      throw new AssertionError(name + "'s recording twin replied without its wake-ups: " + reply);
    }
    if (recorded.size() % 3 != 0) {
      throw new AssertionError(
          name + "'s recording twin recorded a list not of triples: " + recorded);
    }
    List<String> triples = new ArrayList<>();
    for (Object value : recorded) {
      if (!(value instanceof String text)) {
        throw new AssertionError(name + "'s recording twin recorded a non-string: " + recorded);
      }
      triples.add(text);
    }
    return triples;
  }

  /** The script's own reply within its twin's: the second element (absent: nil). */
  @SuppressWarnings("unchecked") // NestedMultiOutput reads an array as a List<Object>
  private static List<Object> ownReply(String name, List<Object> reply) {
    if (reply.size() > 2) {
      throw new AssertionError(name + "'s recording twin replied more than two elements: " + reply);
    }
    Object own = reply.size() > 1 ? reply.get(1) : null;
    if (own != null && !(own instanceof List<?>)) {
      throw new AssertionError(name + " replied a bare value: " + own);
    }
    return (List<Object>) own;
  }

  private Script load(String name) {
    Script loaded = LuaScripts.load(name);
    Script script = clientPublishes ? loaded.recording() : loaded;
    redis.scriptLoad(script.body());
    return script;
  }

  /** Writes a plain command or a remark to the log. */
  void note(String line) {
    log.add(line);
  }

  List<String> log() {
    return List.copyOf(log);
  }

  /** The server clock, in ms, as the scripts read it (TIME). */
  long serverMillis() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /** Every key now in the database. */
  List<String> keys() {
    List<String> all = new ArrayList<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.limit(500));
      all.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return all;
  }

  /**
   * A key's serialized value and absolute expiry (ms; 0 for none), as a restart would bring back.
   */
  // ArrayRecordComponent: a dump's bytes, only handed back to RESTORE, never compared or hashed
  @SuppressWarnings("ArrayRecordComponent")
  record Saved(byte[] value, long expiresAt) {}

  /** Takes a snapshot of every key (as SAVE would write them). */
  Map<String, Saved> snapshot() {
    Map<String, Saved> saved = new HashMap<>();
    for (String key : keys()) {
      byte[] value = bytes.sync().dump(utf8(key));
      Long at = redis.pexpiretime(key);
      if (value != null) {
        saved.put(key, new Saved(value, at == null || at < 0 ? 0 : at));
      }
    }
    log.add("SAVE   (snapshot of " + saved.size() + " keys: " + saved.keySet() + ")");
    return saved;
  }

  /**
   * Brings the database back to a snapshot, as a restart from that older file does: keys made since
   * are gone, the saved ones come back with their absolute expiry (those past it stay gone).
   */
  void restore(Map<String, Saved> snapshot) {
    for (String key : keys()) {
      redis.del(key);
    }
    for (Map.Entry<String, Saved> entry : snapshot.entrySet()) {
      RestoreArgs args = RestoreArgs.Builder.ttl(entry.getValue().expiresAt()).replace();
      if (entry.getValue().expiresAt() > 0) {
        args.absttl();
      }
      bytes.sync().restore(utf8(entry.getKey()), entry.getValue().value(), args);
    }
    log.add("RESTART from the snapshot (FLUSHALL; RESTORE ... ABSTTL each saved key)");
  }

  /** Ends a key's lease now (its expiry set in the past: Redis deletes it). */
  void expireNow(String key) {
    redis.pexpireat(key, 1);
    log.add("PEXPIREAT " + key + " 1");
  }

  /** Sets a key's remaining life, in ms. */
  void pexpire(String key, long millis) {
    redis.pexpire(key, millis);
    log.add("PEXPIRE " + key + " " + millis);
  }

  /** Ends the lease of one member of a sorted set of deadlines now (score 1 ms after 1970). */
  void endDeadline(String key, String member) {
    redis.zadd(key, io.lettuce.core.ZAddArgs.Builder.xx(), 1.0, member);
    log.add("ZADD " + key + " XX 1 " + member);
  }

  void flush() {
    redis.flushall();
    log.clear();
    hearing.reset();
  }

  private static byte[] utf8(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    hearing.close();
    text.close();
    bytes.close();
    client.shutdown();
  }
}
