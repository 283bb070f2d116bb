package dev.warden.internal.redis;

import dev.warden.TlsOptions;
import dev.warden.WardenException;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What every {@link Deployment} connects with, and the Lettuce set-up they all share, written once:
 * their own client resources (event loops, timers) with a capped reconnect back-off; the same
 * options on every client (auto-reconnect, scripts never replayed by Lettuce, TLS); URIs checked by
 * argument name; and a start-up that, when it fails, leaves nothing running and says why in a
 * {@link WardenException}, without credentials.
 *
 * <p>The command timeout bounds every call and also every socket connect, first or reconnect, in
 * place of Lettuce's 10 s: a node that does not accept a connection within a command timeout counts
 * as unreachable (on a cluster, a topology refresh then waits at most twice the command timeout for
 * a node, its connect and its answer).
 *
 * <p>Immutable; every method may be called from any thread.
 */
public final class ClientSetup {
  private final Settings settings;
  private final Clock clock;
  private final Timer timer;
  private final String clientName;
  private final TlsOptions tls; // null: TLS only where a URI says rediss://

  /**
   * @param clock the clock of deadlines, for what a deployment measures itself
   * @param timer the timer of what a deployment schedules or waits for itself (a poll, a retry)
   * @param clientName the name every connection gets ({@code CLIENT SETNAME}), with a suffix for
   *     special ones ({@code -pubsub}, {@code -wait})
   * @param tls the TLS options, or null (TLS only where a URI says {@code rediss://})
   */
  public ClientSetup(
      Settings settings, Clock clock, Timer timer, String clientName, TlsOptions tls) {
    this.settings = settings;
    this.clock = clock;
    this.timer = timer;
    this.clientName = clientName;
    this.tls = tls;
  }

  public Settings settings() {
    return settings;
  }

  public Clock clock() {
    return clock;
  }

  public Timer timer() {
    return timer;
  }

  public String clientName() {
    return clientName;
  }

  /** {@link Settings#commandTimeoutNanos()} as a duration, for Lettuce. */
  public Duration commandTimeout() {
    return Duration.ofNanos(settings.commandTimeoutNanos());
  }

  /**
   * Parses {@code uri}, given as {@code argument}, and gives it the command timeout and the TLS
   * options.
   *
   * @param kind what the URI should be, for the message: "Redis URI", "Redis Sentinel URI"
   * @throws IllegalArgumentException naming the argument and its value (redacted) if it is
   *     malformed
   */
  public RedisURI uri(String argument, String uri, String kind) {
    RedisURI parsed;
    try {
      parsed = RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          Redaction.redact(
              argument + " is not a valid " + kind + ": " + uri + " (" + e.getMessage() + ")"));
    }
    parsed.setTimeout(commandTimeout());
    withoutLibraryInfo(parsed);
    parsed.getSentinels().forEach(ClientSetup::withoutLibraryInfo);
    return TlsSetup.apply(parsed, tls);
  }

  /**
   * Keeps Lettuce from sending {@code CLIENT SETINFO lib-name/lib-ver} after the handshake, and
   * returns {@code uri}. Redis 7.2+ and Valkey 8 have the command, and the smallest ACL rule cannot
   * allow it: Redis 7.0 refuses {@code +client|setinfo} in a rule (an unknown subcommand), so one
   * rule could not serve both, and a user without it gets an ACL log entry on every connect
   * (Lettuce ignores the refusal, the operator sees it). Every connection is already named by
   * {@code CLIENT SETNAME} ({@code warden-<client id>}), which identifies Warden's connections
   * better.
   */
  public static RedisURI withoutLibraryInfo(RedisURI uri) {
    uri.setLibraryName("");
    uri.setLibraryVersion("");
    return uri;
  }

  /**
   * Describes a URI for messages: without credentials, and without the empty library parameters
   * that {@link #withoutLibraryInfo} leaves in its text.
   */
  public static String describe(RedisURI uri) {
    String text =
        Redaction.redact(uri.toString())
            .replaceAll("(libraryName|libraryVersion)=(&|$)", "")
            .replaceAll("[?&]$", "");
    return text;
  }

  /**
   * Gives {@code options} what every Warden client has: auto-reconnect, no replay of scripts
   * ({@link NoScriptReplay}), the command timeout on every command and every socket connect, and
   * the TLS options. Returns {@code options} for more settings and {@code build()}.
   */
  public <B extends ClientOptions.Builder> B options(B options) {
    options
        .autoReconnect(true)
        .replayFilter(new NoScriptReplay())
        .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout()).build())
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout()));
    return TlsSetup.apply(options, tls);
  }

  /**
   * New client resources for one deployment, with the reconnect back-off capped (Lettuce's default
   * grows to 30 s): see {@link Settings#RECONNECT_DELAY_MAX_MILLIS}.
   */
  public static ClientResources resources() {
    return DefaultClientResources.builder()
        .reconnectDelay(
            () ->
                Delay.exponential(
                    Duration.ofMillis(Settings.RECONNECT_DELAY_FIRST_MILLIS),
                    Duration.ofMillis(Settings.RECONNECT_DELAY_MAX_MILLIS),
                    2,
                    TimeUnit.MILLISECONDS))
        .build();
  }

  /**
   * Runs one step of a deployment's start-up (connecting, naming the connections) and returns what
   * it made. If it fails, runs {@code cleanup} (which must shut down everything started so far, see
   * {@link #shutdown}) and throws.
   *
   * @param target what is connected to, for the message: "Redis at host:port"
   * @throws WardenException "cannot connect to {@code target}: why" (an ACL refusal or a TLS
   *     failure explained; never with credentials)
   */
  public static <T> T connect(String target, Supplier<T> step, Runnable cleanup) {
    try {
      return step.get();
    } catch (RuntimeException e) {
      cleanup.run();
      throw new WardenException(
          "cannot connect to " + target + ": " + Failures.connectReason(e), e);
    }
  }

  /**
   * Shuts the clients down at once (no quiet period, at most 2 s each; this closes every connection
   * they opened), then their resources, without waiting for Netty's threads to end.
   */
  // FutureReturnValueIgnored: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  public static void shutdown(ClientResources resources, AbstractRedisClient... clients) {
    for (AbstractRedisClient client : clients) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
