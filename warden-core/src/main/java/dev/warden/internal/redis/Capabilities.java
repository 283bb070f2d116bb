package dev.warden.internal.redis;

import dev.warden.DeploymentReport;
import dev.warden.DeploymentReport.Check;
import dev.warden.DeploymentReport.Status;
import dev.warden.WakeUps;
import dev.warden.WardenException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The capability check that {@code build()} runs after connecting, and {@code warden doctor}
 * prints: whether the deployment lets the connected user do what Warden will do there, each refusal
 * named with the server's words and what to do. One round trip, in parallel: the probe script
 * {@code server-probe.lua} (scripts, {@code TIME}, the wake-up publish, {@code CLUSTER MYID/INFO}
 * on a cluster, and every command of Warden's scripts under the user's ACL), the wake-up publish
 * from the client (for {@link WakeUps#FROM_CLIENT}, which {@link WakeUps#AUTO} falls back to where
 * scripts may not publish: {@link #wakeUps}), the wake-up subscription ({@code SUBSCRIBE}, or
 * {@code SSUBSCRIBE} on a cluster) on the pub/sub connection, {@code INFO replication} (a
 * multi-master store is refused), and {@code WAIT 0 0} when a replication policy needs it.
 *
 * <p>Stateless; {@link #probe} blocks the caller for at most about twice the command timeout.
 */
public final class Capabilities {
  /** The hash tag of the probe's key and channel: one that no object uses. */
  static final String PROBE_TAG = "warden-probe";

  private static final Script PROBE = Script.load(Capabilities.class, "server-probe");
  private static final String RULE = "give the user the ACL rule of docs/security.md";

  private Capabilities() {}

  /**
   * Checks the deployment and returns the report; refusals are in the report, not thrown.
   *
   * @param needsWait whether a replication policy will send {@code WAIT}
   * @param wakeUps who is to publish wake-ups, as the options ask
   * @param record whether to record this client's on-Redis format in the deployment's marker
   *     ({@code build()} does, {@code warden doctor} does not): {@link DataFormat}
   * @param namespace where the Warden's keys and channels live: the probe's key and channel are
   *     there ({@code <namespace>{warden-probe}:probe}), so an ACL rule limited to it is checked
   * @throws WardenException if the deployment does not answer within the command timeout
   */
  public static DeploymentReport probe(
      Deployment deployment,
      boolean needsWait,
      WakeUps wakeUps,
      boolean record,
      long commandTimeoutNanos,
      Namespace namespace) {
    boolean cluster = deployment.shardedPubSub();
    String probeKey = namespace.key(PROBE_TAG, "probe");
    String probeChannel = probeKey; // a channel may share a key's name: they are apart in Redis
    String rule = rule(namespace);
    CompletableFuture<List<Object>> script =
        new Scripts(deployment)
            .run(PROBE, new String[] {probeKey}, probeChannel, cluster ? "1" : "0");
    CompletableFuture<List<Object>> format = DataFormat.mark(deployment, record, namespace);
    CompletableFuture<Void> subscription = deployment.pubSub().subscribe(probeChannel);
    // the wake-up as FROM_CLIENT publishes it: an empty message on the probe channel, from the
    // client
    CompletableFuture<Long> clientPublish =
        deployment.dispatch(
            probeKey.getBytes(StandardCharsets.UTF_8),
            cluster ? CommandType.SPUBLISH : CommandType.PUBLISH,
            new IntegerOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add(probeChannel).add(""));
    // sent with a routing key: on a cluster, to the slot's master over its node connection (the
    // cluster connection's own, for keyless commands, is not re-authenticated by Lettuce when a
    // streaming credentials provider sends new credentials)
    CompletableFuture<String> info =
        deployment.dispatch(
            probeKey.getBytes(StandardCharsets.UTF_8),
            CommandType.INFO,
            new StatusOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add("replication"));
    CompletableFuture<Long> wait =
        needsWait
            ? deployment.dispatch(
                probeKey.getBytes(StandardCharsets.UTF_8),
                CommandType.WAIT,
                new IntegerOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add(0).add(0))
            : null;
    long bound = 2 * commandTimeoutNanos;
    List<Check> checks = new ArrayList<>();
    Outcome<List<Object>> scripted = Outcome.of(script, bound, deployment);
    String fromClient = Outcome.of(clientPublish, bound, deployment).failure;
    WakeUps chosen = wakeUps == WakeUps.FROM_CLIENT ? WakeUps.FROM_CLIENT : WakeUps.FROM_SCRIPTS;
    Map<String, String> failed = scripted.failure == null ? pairs(scripted.value) : Map.of();
    if (scripted.failure != null) {
      checks.add(
          refused(
              "scripts (EVALSHA, EVAL)", scripted.failure, scriptsFix(scripted, namespace, rule)));
      String why = "scripts refused";
      checks.add(notChecked("TIME from a script", why));
      checks.add(notChecked(publish(cluster) + " from a script", why));
      if (wakeUps == WakeUps.FROM_CLIENT) {
        checks.add(wakeUps(wakeUps, cluster, null, fromClient, rule).check());
      }
      if (cluster) {
        checks.add(notChecked("CLUSTER MYID and CLUSTER INFO from a script", why));
      }
      checks.add(notChecked("the commands of Warden's scripts", why));
    } else {
      checks.add(ok("scripts (EVALSHA, EVAL)"));
      checks.add(fromScript("TIME from a script", failed, List.of("time"), rule));
      WakeUpsVerdict verdict =
          wakeUps(wakeUps, cluster, publishRefusal(failed, cluster), fromClient, rule);
      checks.add(verdict.check());
      chosen = verdict.chosen();
      if (cluster) {
        checks.add(
            fromScript(
                "CLUSTER MYID and CLUSTER INFO from a script",
                failed,
                List.of("cluster|myid", "cluster|info"),
                rule));
      }
      checks.add(commands(failed, rule));
    }
    Outcome<Void> subscribed = Outcome.of(subscription, bound, deployment);
    String subscribe = cluster ? "SSUBSCRIBE" : "SUBSCRIBE";
    if (subscribed.failure == null) {
      deployment.pubSub().unsubscribe(probeChannel);
      checks.add(ok(subscribe + " (wake-ups)"));
    } else {
      checks.add(
          refused(
              subscribe + " (wake-ups)",
              subscribed.failure,
              Permissions.isRefusal(subscribed.failure)
                  ? rule
                      + (subscribed.failure.toLowerCase(java.util.Locale.ROOT).contains("channel")
                          ? " (its channel pattern &"
                              + namespace.pattern()
                              + " covers every channel Warden uses)"
                          : " (it has +" + subscribe.toLowerCase(java.util.Locale.ROOT) + ")")
                  : "waiters are woken by " + subscribe + ": this deployment does not serve it"));
    }
    if (wait != null) {
      Outcome<Long> waited = Outcome.of(wait, bound, deployment);
      checks.add(
          waited.failure == null
              ? ok("WAIT (the replication policy)")
              : refused(
                  "WAIT (the replication policy)",
                  waited.failure,
                  Permissions.isRefusal(waited.failure)
                      ? rule + " (it has +wait)"
                      : "this deployment does not serve WAIT: use Replication.none()"));
    }
    checks.add(master(Outcome.of(info, bound, deployment), cluster));
    checks.add(format(Outcome.of(format, bound, deployment)));
    return new DeploymentReport(deployment.describe(), checks, chosen);
  }

  /**
   * The server's error to the probe's {@code PUBLISH} ({@code SPUBLISH} on a cluster) from a
   * script, or null when it was allowed. Any error counts: unlike the probe's writes, which are
   * sent arguments a server refuses on purpose, the publish has none a server could find wrong, and
   * each proxy words its refusal its own way; a refusal taken for "allowed" would meet every
   * release's script (which fails after its writes) instead of making AUTO choose the client.
   */
  static String publishRefusal(Map<String, String> failed, boolean cluster) {
    return failed.get(publish(cluster).toLowerCase(java.util.Locale.ROOT));
  }

  /** Who publishes wake-ups, and the report's line about it. */
  record WakeUpsVerdict(WakeUps chosen, Check check) {}

  /**
   * Decides who publishes wake-ups: {@code asked} as the options say, given what the server said to
   * {@code PUBLISH} ({@code SPUBLISH} on a cluster) from a script ({@code inScript}: its refusal,
   * or null when allowed) and from the client ({@code fromClient}, the same). {@link WakeUps#AUTO}
   * takes the scripts where they may publish, else the client where it may; a mode whose publish is
   * refused is reported refused, so {@code build()} fails naming it.
   */
  static WakeUpsVerdict wakeUps(
      WakeUps asked, boolean cluster, String inScript, String fromClient, String rule) {
    String command = publish(cluster);
    String grant = " (it has +" + command.toLowerCase(java.util.Locale.ROOT) + ")";
    String inScriptName = command + " from a script";
    String fromClientName = command + " from the client (wake-ups)";
    if (asked == WakeUps.FROM_CLIENT) {
      return new WakeUpsVerdict(
          WakeUps.FROM_CLIENT,
          fromClient == null
              ? ok(fromClientName)
              : refused(
                  fromClientName,
                  fromClient,
                  Permissions.isRefusal(fromClient)
                      ? rule + grant
                      : "waiters are woken by " + command + ": this deployment does not serve it"));
    }
    if (inScript == null) {
      return new WakeUpsVerdict(WakeUps.FROM_SCRIPTS, ok(inScriptName));
    }
    if (asked == WakeUps.AUTO && fromClient == null) {
      return new WakeUpsVerdict(
          WakeUps.FROM_CLIENT,
          ok(fromClientName + ", as " + inScriptName + " is refused: " + inScript.strip()));
    }
    String fix;
    if (Permissions.isRefusal(inScript)) {
      fix = rule + grant;
    } else if (fromClient == null) { // FROM_SCRIPTS asked for
      fix =
          "this deployment refuses "
              + command
              + " in scripts and allows it to clients: use WakeUps.AUTO or WakeUps.FROM_CLIENT"
              + " (the client publishes each wake-up after its script)";
    } else {
      fix =
          "this deployment refuses "
              + command
              + " in scripts, and to the client ("
              + fromClient.strip()
              + "): waiters could not be woken";
    }
    return new WakeUpsVerdict(WakeUps.FROM_SCRIPTS, refused(inScriptName, inScript, fix));
  }

  private static String publish(boolean cluster) {
    return cluster ? "SPUBLISH" : "PUBLISH";
  }

  /** What to do about a refusal: the rule, named for the namespace's patterns. */
  private static String rule(Namespace namespace) {
    return namespace.equals(Namespace.DEFAULT)
        ? RULE
        : RULE
            + " with this key prefix's patterns ~"
            + namespace.pattern()
            + " &"
            + namespace.pattern();
  }

  private static String scriptsFix(Outcome<?> scripted, Namespace namespace, String rule) {
    if (Permissions.isRefusal(scripted.failure)) {
      String lower = scripted.failure.toLowerCase(java.util.Locale.ROOT);
      if (lower.contains("key")) {
        return rule
            + " (its key pattern ~"
            + namespace.pattern()
            + " covers every key Warden uses)";
      }
      return rule + " (it has +evalsha +eval)";
    }
    return "every Warden operation is one Lua script: this deployment cannot host Warden";
  }

  /** The script's reply as command to error, in order. */
  private static Map<String, String> pairs(List<Object> reply) {
    Map<String, String> failed = new LinkedHashMap<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      failed.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
    }
    return failed;
  }

  /** Whether a script's call failed because the command is not there for it, or not allowed. */
  private static boolean denied(String error) {
    return Permissions.isRefusal(error) || missing(error);
  }

  private static boolean missing(String error) {
    String lower = error.toLowerCase(java.util.Locale.ROOT);
    return lower.contains("unknown command")
        || lower.contains("unknown redis command")
        || lower.contains("unknown subcommand")
        || lower.contains("not allowed from script");
  }

  private static Check fromScript(
      String name, Map<String, String> failed, List<String> commands, String rule) {
    for (String command : commands) {
      String error = failed.get(command);
      if (error != null && denied(error)) {
        String fix =
            Permissions.isRefusal(error)
                ? rule + " (it has +" + command + ")"
                : "Warden's scripts call " + command + ": this deployment refuses it in scripts";
        return new Check(name, Status.REFUSED, error.strip(), fix);
      }
    }
    return ok(name);
  }

  private static Check commands(Map<String, String> failed, String rule) {
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, String> call : failed.entrySet()) {
      String command = call.getKey();
      if (!List.of("time", "publish", "spublish", "cluster|myid", "cluster|info").contains(command)
          && denied(call.getValue())) {
        refused.add(command + ": " + call.getValue().strip());
      }
    }
    if (refused.isEmpty()) {
      return ok("the commands of Warden's scripts");
    }
    return new Check(
        "the commands of Warden's scripts", Status.REFUSED, String.join("; ", refused), rule);
  }

  private static Check master(Outcome<String> info, boolean cluster) {
    String name = "one writable master (INFO replication)";
    if (info.failure != null) {
      return notChecked(name, "INFO: " + info.failure.strip() + "; the rule's +info lets it check");
    }
    String replication = info.value;
    if (replication.contains("role:active-replica")) {
      return new Check(
          name,
          Status.REFUSED,
          "role:active-replica",
          "a KeyDB active replica is a writable master beside its peers: two clients could each"
              + " take the same lock on another master. Connect to a store with one master per"
              + " key (turn off active-replica)");
    }
    if (!cluster && replication.contains("role:slave")) {
      return new Check(
          name,
          Status.REFUSED,
          "role:slave",
          "this server is a read-only replica: connect to its master (or through Sentinel)");
    }
    return ok(name);
  }

  private static Check format(Outcome<List<Object>> marker) {
    if (marker.failure != null) {
      return notChecked(DataFormat.CHECK, "its marker: " + marker.failure.strip());
    }
    return DataFormat.verdict((Long) marker.value.get(0), (Long) marker.value.get(1));
  }

  private static Check ok(String name) {
    return new Check(name, Status.OK, "", "");
  }

  private static Check notChecked(String name, String why) {
    return new Check(name, Status.NOT_CHECKED, why, "");
  }

  private static Check refused(String name, String serverSaid, String fix) {
    return new Check(name, Status.REFUSED, serverSaid.strip(), fix);
  }

  /** A call's value, or the server's refusal; anything else (no answer in time) is thrown. */
  private static final class Outcome<T> {
    final T value;
    final String failure;

    private Outcome(T value, String failure) {
      this.value = value;
      this.failure = failure;
    }

    static <T> Outcome<T> of(CompletableFuture<T> call, long boundNanos, Deployment deployment) {
      try {
        return new Outcome<>(call.get(boundNanos, TimeUnit.NANOSECONDS), null);
      } catch (ExecutionException e) {
        Throwable cause = Failures.unwrap(e);
        if (cause instanceof io.lettuce.core.RedisCommandExecutionException) {
          return new Outcome<>(null, Redaction.redact(String.valueOf(cause.getMessage())));
        }
        throw new WardenException(
            "cannot check " + deployment.describe() + ": " + Failures.connectReason(cause), cause);
      } catch (TimeoutException e) {
        call.cancel(false);
        throw new WardenException(
            "cannot check " + deployment.describe() + ": no answer within the command timeout", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new WardenException("interrupted while checking " + deployment.describe(), e);
      }
    }
  }
}
