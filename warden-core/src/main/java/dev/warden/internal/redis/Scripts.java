package dev.warden.internal.redis;

import dev.warden.internal.base.Settings;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerListOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Warden's Lua scripts with EVALSHA, routed by their first key. When Redis answers NOSCRIPT
 * (first use, a restart, SCRIPT FLUSH, failover, another cluster node) the call is sent again as
 * EVAL, which also caches the script: a NOSCRIPT reply means the script did not run, so resending
 * cannot apply it twice. A rare call that must run as soon as it reaches Redis sends its body at
 * once ({@link #run(Script, boolean, String[], String...)}).
 *
 * <p>Every script replies with a table (integers and strings), never a bare value; most open it
 * with a status, and each script's header gives its shape.
 *
 * <p>Wake-ups: scripts publish their own (PUBLISH, SPUBLISH on a cluster: {@link
 * Script#sharded()}), or, where the server refuses that ({@code WakeUps.FROM_CLIENT}), their
 * {@linkplain Script#recording() recording twins} run instead and this class publishes what a
 * script recorded: on the reply's thread (the event loop), before the caller's future completes, so
 * the PUBLISH is written to the script's connection ahead of anything the caller sends once it has
 * the reply, and Redis runs it first. The caller does not wait for the PUBLISH: a wake-up is a hint
 * to try again, whose only order that matters is that one (the releasing client's next acquisition
 * behind its release's wake-up); a wake-up lost with its reply, or with a client that dies before
 * publishing, is covered by the waiters' recheck, as a lost message always was.
 */
public final class Scripts {
  private static final Logger log = LoggerFactory.getLogger(Scripts.class);

  private final Deployment redis;
  private final boolean sharded;
  private final boolean clientPublishes;
  private final Map<Script, Script> twins = new ConcurrentHashMap<>();
  private volatile FenceTerms fenceTerms = new FenceTerms("", "");

  /** Scripts that publish their own wake-ups. */
  public Scripts(Deployment redis) {
    this(redis, false);
  }

  /**
   * Scripts that publish their own wake-ups, or, with {@code clientPublishes}, record them for this
   * class to publish after each reply.
   */
  public Scripts(Deployment redis, boolean clientPublishes) {
    this.redis = redis;
    this.sharded = redis.shardedPubSub();
    this.clientPublishes = clientPublishes;
  }

  /** Whether this client publishes the scripts' wake-ups ({@code WakeUps.FROM_CLIENT}). */
  public boolean clientPublishes() {
    return clientPublishes;
  }

  /**
   * Runs a script whose reply is a list (integers and strings). The keys and arguments are encoded
   * to UTF-8 here, on the caller's thread: given as strings, Lettuce would encode each one on its
   * event loop through a pooled scratch buffer, and that one thread serves every caller.
   */
  public CompletableFuture<List<Object>> run(Script script, String[] keys, String... args) {
    return run(script, false, keys, args);
  }

  /**
   * Runs a script as {@link #run(Script, String[], String...)} does; {@code sendBody}: sends its
   * body at once (EVAL, which caches it too) instead of its digest first. For a rare call that must
   * run as soon as it reaches Redis (the drop of a lost hold), also on a Redis that has not cached
   * the script since it started (a restart, a failover to a replica): there EVALSHA only gets
   * NOSCRIPT, and in a one-way partition (replies lost, requests still arriving) that reply, which
   * the EVAL waits for, never comes back.
   */
  public CompletableFuture<List<Object>> run(
      Script script, boolean sendBody, String[] keys, String... args) {
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
        sendBody,
        routingKey,
        keys.length,
        keysAndArgs,
        () -> new NestedMultiOutput<>(StringCodec.UTF8),
        Scripts::asList);
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
        script,
        false,
        routingKey,
        keyCount,
        keysAndArgs,
        () -> new IntegerListOutput<>(StringCodec.UTF8),
        Scripts::asIntegers);
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

  /**
   * Runs a script: its own, or in {@code FROM_CLIENT} mode its recording twin, whose reply {@code
   * {recorded wake-ups, reply}} is read as nested lists, the wake-ups published and the reply
   * handed on as {@code unwrap} reads it (what {@code output} would have read from the script
   * itself).
   */
  private <T> CompletableFuture<T> withFallback(
      Script given,
      boolean sendBody,
      byte[] routingKey,
      int keyCount,
      CommandArgs<String, String> keysAndArgs,
      Supplier<CommandOutput<String, String, T>> output,
      Function<Object, T> unwrap) {
    if (clientPublishes) {
      return evaluate(
              twins.computeIfAbsent(given, Script::recording),
              sendBody,
              routingKey,
              keyCount,
              keysAndArgs,
              () -> new NestedMultiOutput<>(StringCodec.UTF8))
          .thenApply(reply -> unwrap.apply(publishRecorded(given, routingKey, reply)));
    }
    return evaluate(
        sharded ? twins.computeIfAbsent(given, Script::sharded) : given,
        sendBody,
        routingKey,
        keyCount,
        keysAndArgs,
        output);
  }

  /** EVALSHA, and EVAL when Redis answers NOSCRIPT; or EVAL at once ({@code sendBody}). */
  private <T> CompletableFuture<T> evaluate(
      Script script,
      boolean sendBody,
      byte[] routingKey,
      int keyCount,
      CommandArgs<String, String> keysAndArgs,
      Supplier<CommandOutput<String, String, T>> output) {
    if (sendBody) {
      return dispatch(
          CommandType.EVAL, script.body(), routingKey, keyCount, keysAndArgs, output.get());
    }
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

  /**
   * Publishes the wake-ups a recording twin recorded (the first element of its reply: channel,
   * message, fallback channel or {@code ""}, ...), each on the script's own node and connection
   * (its channel shares the first key's hash tag), and returns the script's own reply (the second
   * element; null when it replied nil). A wake-up addressed to one client (prelude.lua's {@code
   * publish_to}) names the shared channel as its fallback: it is published there too when nobody
   * received it on its own channel (a client of a previous version listens on the shared channel
   * only), from the first PUBLISH's reply; where PUBLISH's count takes in pattern subscribers (a
   * monitoring tool's PSUBSCRIBE; not SPUBLISH), from PUBSUB NUMSUB of the channel when that count
   * is not 0. Called on the thread that completes the reply, before the caller sees it. A failed
   * PUBLISH is logged, not the caller's failure: the script did what it was asked, and the waiters'
   * recheck finds what the wake-up would have told them.
   */
  private Object publishRecorded(Script script, byte[] routingKey, List<Object> reply) {
    if (reply.isEmpty() || !(reply.get(0) instanceof List<?> recorded)) {
      throw new IllegalStateException(
          "script " + script.name() + ": a recording twin's reply lacks its wake-ups: " + reply);
    }
    for (int i = 0; i + 2 < recorded.size(); i += 3) {
      String channel = String.valueOf(recorded.get(i));
      String message = String.valueOf(recorded.get(i + 1));
      String fallback = String.valueOf(recorded.get(i + 2));
      publish(
          script,
          routingKey,
          channel,
          message,
          receivers -> {
            if (fallback.isEmpty()) {
              return;
            }
            if (receivers == 0) {
              publish(script, routingKey, fallback, message, heard -> {});
            } else if (!sharded) { // PUBLISH counted pattern subscribers too: ask who listens
              ownSubscribers(
                  script,
                  routingKey,
                  channel,
                  listening -> {
                    if (listening == 0) {
                      publish(script, routingKey, fallback, message, heard -> {});
                    }
                  });
            }
          });
    }
    return reply.size() > 1 ? reply.get(1) : null;
  }

  /** Publishes {@code message} on {@code channel} and tells {@code receivers} how many heard it. */
  private void publish(
      Script script, byte[] routingKey, String channel, String message, LongConsumer receivers) {
    send(
        script,
        routingKey,
        channel,
        sharded ? CommandType.SPUBLISH : CommandType.PUBLISH,
        new IntegerOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add(channel).add(message),
        heard -> {
          if (heard != null) {
            receivers.accept(heard);
          }
        });
  }

  /**
   * Tells {@code subscribers} how many clients subscribe {@code channel} itself (PUBSUB NUMSUB:
   * pattern subscribers are not counted), on the script's node.
   */
  private void ownSubscribers(
      Script script, byte[] routingKey, String channel, LongConsumer subscribers) {
    send(
        script,
        routingKey,
        channel,
        CommandType.PUBSUB,
        new NestedMultiOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add("NUMSUB").add(channel),
        // a reply of another shape counts as nobody: a second message costs less than a turn
        // heard only at the recheck
        reply ->
            subscribers.accept(
                reply != null && reply.size() > 1 && reply.get(1) instanceof Long n ? n : 0));
  }

  /**
   * Sends a command of a wake-up on the script's node and connection, without waiting for it, and
   * hands its reply to {@code onReply}; a failure is logged as a lost wake-up (the waiters' recheck
   * finds what it would have told them), not the caller's failure.
   */
  // FutureReturnValueIgnored: the whenComplete callback handles the outcome; nobody waits for it
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> void send(
      Script script,
      byte[] routingKey,
      String channel,
      CommandType type,
      CommandOutput<String, String, T> output,
      CommandArgs<String, String> args,
      Consumer<T> onReply) {
    try {
      redis
          .dispatch(routingKey, type, output, args)
          .whenComplete(
              (reply, failure) -> {
                if (failure != null) {
                  logLostWakeUp(script, channel, Failures.unwrap(failure));
                } else {
                  onReply.accept(reply);
                }
              });
    } catch (RuntimeException e) { // the deployment closed meanwhile: the script's reply stands
      logLostWakeUp(script, channel, e);
    }
  }

  private void logLostWakeUp(Script script, String channel, Throwable failure) {
    if (failure instanceof RedisCommandExecutionException) { // refused: a setup problem
      log.warn(
          "{}: the wake-up of {} on {} was refused; its waiters find out at their next recheck: {}",
          redis.describe(),
          script.name(),
          channel,
          Redaction.redact(String.valueOf(failure.getMessage())));
    } else {
      log.debug(
          "{}: the wake-up of {} on {} was lost; its waiters find out at their next recheck",
          redis.describe(),
          script.name(),
          channel,
          failure);
    }
  }

  /** A script's list reply, as {@link #run} hands it on. */
  @SuppressWarnings("unchecked") // NestedMultiOutput reads an array as a List<Object>
  private static List<Object> asList(Object reply) {
    return (List<Object>) reply;
  }

  /** A script's list of integers, as {@link #runEncoded} hands it on. */
  private static List<Long> asIntegers(Object reply) {
    if (reply == null) {
      return null;
    }
    List<Long> integers = new ArrayList<>();
    for (Object value : (List<?>) reply) {
      integers.add(
          value == null || value instanceof Long
              ? (Long) value
              : Long.valueOf(String.valueOf(value)));
    }
    return integers;
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
