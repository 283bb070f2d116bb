package dev.warden.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerListOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs Warden's Lua scripts with EVALSHA. The scripts are resources, read once by {@link
 * ScriptLoader} (the shared prelude, then the script's own file); their SHA-1 is computed locally,
 * so no SCRIPT LOAD round trip is needed. When Redis answers NOSCRIPT (first use, a restart, SCRIPT
 * FLUSH, failover) the call is sent again as EVAL, which also caches the script: a NOSCRIPT reply
 * means the script did not run, so resending cannot apply it twice.
 */
final class Scripts {
  static final Script LOCK_ACQUIRE = Script.load("lock-acquire");
  static final Script LOCK_RELEASE = Script.load("lock-release");
  static final Script LOCK_RENEW = Script.load("lock-renew");
  static final Script LOCK_FORCE_RELEASE = Script.load("lock-force-release");
  static final Script LOCK_INSPECT = Script.load("lock-inspect");
  static final Script LOCK_ACQUIRE_ALL = Script.load("lock-acquire-all");
  static final Script LOCK_TRANSFER = Script.load("lock-transfer");
  static final Script FAIR_ACQUIRE = Script.load("fair-acquire");
  static final Script FAIR_RELEASE = Script.load("fair-release");
  static final Script FAIR_LEAVE = Script.load("fair-leave");
  static final Script FAIR_FORCE_RELEASE = Script.load("fair-force-release");
  static final Script RW_WRITE_ACQUIRE = Script.load("rw-write-acquire");
  static final Script RW_READ_ACQUIRE = Script.load("rw-read-acquire");
  static final Script RW_WRITE_RELEASE = Script.load("rw-write-release");
  static final Script RW_READ_RELEASE = Script.load("rw-read-release");
  static final Script RW_READ_RENEW = Script.load("rw-read-renew");
  static final Script RW_WRITER_LEAVE = Script.load("rw-writer-leave");
  static final Script RW_READ_QUERY = Script.load("rw-read-query");
  static final Script RW_FORCE_RELEASE = Script.load("rw-force-release");
  static final Script COND_ENQUEUE = Script.load("cond-enqueue");
  static final Script COND_CHECK = Script.load("cond-check");
  static final Script COND_LEAVE = Script.load("cond-leave");
  static final Script COND_SIGNAL = Script.load("cond-signal");
  static final Script SEMAPHORE_UPDATE = Script.load("semaphore-update");
  static final Script LEASED_SEMAPHORE_ACQUIRE = Script.load("leased-semaphore-acquire");
  static final Script LEASED_SEMAPHORE_RELEASE = Script.load("leased-semaphore-release");
  static final Script LEASED_SEMAPHORE_RENEW = Script.load("leased-semaphore-renew");
  static final Script LEASED_SEMAPHORE_ADD = Script.load("leased-semaphore-add");
  static final Script LEASED_SEMAPHORE_COUNT = Script.load("leased-semaphore-count");
  static final Script LATCH_SET = Script.load("latch-set");
  static final Script LATCH_COUNT_DOWN = Script.load("latch-count-down");
  static final Script LATCH_AWAIT = Script.load("latch-await");
  static final Script LATCH_DELETE = Script.load("latch-delete");

  private final RedisAsyncCommands<String, String> redis;

  Scripts(RedisAsyncCommands<String, String> redis) {
    this.redis = redis;
  }

  /**
   * Runs a script whose reply is a list (integers and strings). The keys and arguments are encoded
   * to UTF-8 here, on the caller's thread: given as strings, Lettuce would encode each one on its
   * event loop through a pooled scratch buffer, and that one thread serves every caller. As in
   * {@link #runEncoded}, the keys are not marked as keys.
   */
  CompletableFuture<List<Object>> run(Script script, String[] keys, String... args) {
    CommandArgs<String, String> keysAndArgs = new CommandArgs<>(StringCodec.UTF8);
    for (String key : keys) {
      keysAndArgs.add(key.getBytes(StandardCharsets.UTF_8));
    }
    for (String arg : args) {
      keysAndArgs.add(arg.getBytes(StandardCharsets.UTF_8));
    }
    CompletableFuture<List<Object>> first =
        dispatch(CommandType.EVALSHA, script.sha(), keys.length, keysAndArgs, listOutput());
    return first.exceptionallyCompose(
        failure -> {
          if (Failures.unwrap(failure) instanceof RedisNoScriptException) {
            return dispatch(
                CommandType.EVAL, script.body(), keys.length, keysAndArgs, listOutput());
          }
          return CompletableFuture.failedFuture(failure);
        });
  }

  private static CommandOutput<String, String, List<Object>> listOutput() {
    return new NestedMultiOutput<>(StringCodec.UTF8);
  }

  /**
   * Runs a script whose keys and arguments were encoded by the caller (e.g. with {@link
   * CommandArgs#add(byte[])}, so that bytes sent again and again are encoded once), and whose reply
   * is a list of integers. {@code keysAndArgs} holds the {@code keyCount} keys, then the arguments.
   * The keys are not marked as keys for Lettuce, which routes nothing by them on a single Redis.
   */
  CompletableFuture<List<Long>> runEncoded(
      Script script, int keyCount, CommandArgs<String, String> keysAndArgs) {
    CompletableFuture<List<Long>> first =
        dispatch(CommandType.EVALSHA, script.sha(), keyCount, keysAndArgs, integersOutput());
    return first.exceptionallyCompose(
        failure -> {
          if (Failures.unwrap(failure) instanceof RedisNoScriptException) {
            return dispatch(
                CommandType.EVAL, script.body(), keyCount, keysAndArgs, integersOutput());
          }
          return CompletableFuture.failedFuture(failure);
        });
  }

  private static CommandOutput<String, String, List<Long>> integersOutput() {
    return new IntegerListOutput<>(StringCodec.UTF8);
  }

  private <T> CompletableFuture<T> dispatch(
      CommandType type,
      String script,
      int keyCount,
      CommandArgs<String, String> keysAndArgs,
      CommandOutput<String, String, T> output) {
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8).add(script).add(keyCount).addAll(keysAndArgs);
    return redis.dispatch(type, output, args).toCompletableFuture();
  }

  /** Reads an integer from a script's list reply. */
  static long number(List<Object> reply, int index) {
    Object value = reply.get(index);
    if (value instanceof Number) {
      return ((Number) value).longValue();
    }
    return Long.parseLong(String.valueOf(value));
  }

  /** One Lua script: its name, its body (the prelude, then its own file) and its SHA-1. */
  record Script(String name, String body, String sha) {
    static Script load(String name) {
      String body = ScriptLoader.body(Scripts.class, name);
      return new Script(name, body, ScriptLoader.sha1(body));
    }
  }
}
