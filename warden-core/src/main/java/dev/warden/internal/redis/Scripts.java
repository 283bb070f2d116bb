package dev.warden.internal.redis;

import dev.warden.internal.base.Settings;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerListOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs Warden's Lua scripts with EVALSHA, routed by their first key. When Redis answers NOSCRIPT
 * (first use, a restart, SCRIPT FLUSH, failover, another cluster node) the call is sent again as
 * EVAL, which also caches the script: a NOSCRIPT reply means the script did not run, so resending
 * cannot apply it twice.
 *
 * <p>Every script replies with a table (integers and strings), never a bare value; most open it
 * with a status, and each script's header gives its shape.
 */
public final class Scripts {
  private final Deployment redis;
  private final boolean sharded;
  private final Map<Script, Script> shardedTwins = new ConcurrentHashMap<>();
  private volatile FenceTerms fenceTerms = new FenceTerms("", "");

  public Scripts(Deployment redis) {
    this.redis = redis;
    this.sharded = redis.shardedPubSub();
  }

  /**
   * Runs a script whose reply is a list (integers and strings). The keys and arguments are encoded
   * to UTF-8 here, on the caller's thread: given as strings, Lettuce would encode each one on its
   * event loop through a pooled scratch buffer, and that one thread serves every caller.
   */
  public CompletableFuture<List<Object>> run(Script script, String[] keys, String... args) {
    CommandArgs<String, String> keysAndArgs = new CommandArgs<>(StringCodec.UTF8);
    byte[] routingKey = null;
    for (String key : keys) {
      byte[] encoded = key.getBytes(StandardCharsets.UTF_8);
      if (routingKey == null) {
        routingKey = encoded;
      }
      keysAndArgs.add(encoded);
    }
    for (String arg : args) {
      keysAndArgs.add(arg.getBytes(StandardCharsets.UTF_8));
    }
    return withFallback(
        script,
        routingKey,
        keys.length,
        keysAndArgs,
        () -> new NestedMultiOutput<>(StringCodec.UTF8));
  }

  /**
   * Runs a script whose keys and arguments were encoded by the caller (e.g. with {@link
   * CommandArgs#add(byte[])}, so that bytes sent again and again are encoded once), and whose reply
   * is a list of integers. {@code keysAndArgs} holds the {@code keyCount} keys, then the arguments;
   * {@code routingKey} is the first key.
   */
  public CompletableFuture<List<Long>> runEncoded(
      Script script, byte[] routingKey, int keyCount, CommandArgs<String, String> keysAndArgs) {
    return withFallback(
        script, routingKey, keyCount, keysAndArgs, () -> new IntegerListOutput<>(StringCodec.UTF8));
  }

  /**
   * The fence terms every script that mints a token takes: {@code "<retention ms>:<epoch>"}, the
   * fence's lifetime ({@link Settings#FENCE_RETENTION_MILLIS}) and the deployment's current {@link
   * Deployment#fenceEpoch() epoch}. Built anew only when the epoch changed (a Sentinel failover).
   */
  public String fenceTerms() {
    String epoch = redis.fenceEpoch();
    FenceTerms terms = fenceTerms;
    if (!terms.epoch().equals(epoch)) {
      terms = new FenceTerms(epoch, Settings.FENCE_RETENTION_MILLIS + ":" + epoch);
      fenceTerms = terms;
    }
    return terms.argument();
  }

  /** An epoch and the fence terms argument built from it. */
  private record FenceTerms(String epoch, String argument) {}

  /** The deployment the scripts run on, for plain commands. */
  public Deployment redis() {
    return redis;
  }

  private <T> CompletableFuture<T> withFallback(
      Script given,
      byte[] routingKey,
      int keyCount,
      CommandArgs<String, String> keysAndArgs,
      Supplier<CommandOutput<String, String, T>> output) {
    Script script = sharded ? shardedTwins.computeIfAbsent(given, Script::sharded) : given;
    return dispatch(
            CommandType.EVALSHA, script.sha(), routingKey, keyCount, keysAndArgs, output.get())
        .exceptionallyCompose(
            failure ->
                Failures.unwrap(failure) instanceof RedisNoScriptException
                    ? dispatch(
                        CommandType.EVAL,
                        script.body(),
                        routingKey,
                        keyCount,
                        keysAndArgs,
                        output.get())
                    : CompletableFuture.failedFuture(failure));
  }

  private <T> CompletableFuture<T> dispatch(
      CommandType type,
      String script,
      byte[] routingKey,
      int keyCount,
      CommandArgs<String, String> keysAndArgs,
      CommandOutput<String, String, T> output) {
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8).add(script).add(keyCount).addAll(keysAndArgs);
    return redis.dispatch(routingKey, type, output, args);
  }

  /** Reads an integer from a script's list reply. */
  public static long number(List<Object> reply, int index) {
    Object value = reply.get(index);
    if (value instanceof Number number) {
      return number.longValue();
    }
    return Long.parseLong(String.valueOf(value));
  }

  /** Whether a script's reply says yes: its status is 1. */
  public static boolean succeeded(List<Object> reply) {
    return number(reply, 0) == 1;
  }
}
