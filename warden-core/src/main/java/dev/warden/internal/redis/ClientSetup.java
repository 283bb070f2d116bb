package dev.warden.internal.redis;

import dev.warden.TlsOptions;
import dev.warden.WardenException;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Timer;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What every {@link Deployment} connects with, and the Lettuce set-up they all share, written once:
 * their own client resources (event loops, timers) with a capped reconnect back-off, or the
 * application's, which they then never shut down; the same options on every client (auto-reconnect,
 * scripts never replayed by Lettuce, TLS, re-authentication when a streaming credentials provider
 * sends new credentials); URIs checked by argument name and given the credentials provider; and a
 * start-up that, when it fails, leaves nothing running and says why in a {@link WardenException},
 * without credentials.
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
  private final RedisCredentialsProvider credentials; // null: those of the URIs
  private final ClientResources shared; // null: each deployment makes and shuts down its own

  /**
   * @param clock the clock of deadlines, for what a deployment measures itself
   * @param timer the timer of what a deployment schedules or waits for itself (a poll, a retry)
   * @param clientName the name every connection gets ({@code CLIENT SETNAME}), with a suffix for
   *     special ones ({@code -pubsub}, {@code -wait})
   * @param tls the TLS options, or null (TLS only where a URI says {@code rediss://})
   */
  public ClientSetup(
      Settings settings, Clock clock, Timer timer, String clientName, TlsOptions tls) {
    this(settings, clock, timer, clientName, tls, null, null);
  }

  /**
   * @param credentials the credentials of every data-node connection, or null for the URIs' own
   * @param shared the application's client resources, or null for Warden's own
   */
  public ClientSetup(
      Settings settings,
      Clock clock,
      Timer timer,
      String clientName,
      TlsOptions tls,
      RedisCredentialsProvider credentials,
      ClientResources shared) {
    this.settings = settings;
    this.clock = clock;
    this.timer = timer;
    this.clientName = clientName;
    this.tls = tls;
    this.credentials = credentials;
    this.shared = shared;
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
   * Parses {@code uri}, given as {@code argument}, and gives it the command timeout, the TLS
   * options and the credentials provider (for a Sentinel URI: the data nodes', as its password).
   *
   * @param kind what the URI should be, for the message: "Redis URI", "Redis Sentinel URI"
   * @throws IllegalArgumentException naming the argument and its value (redacted) if it is
   *     malformed, or carries a password while a credentials provider is set
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
    if (credentials != null) {
      if (hasPassword(parsed)) {
        throw new IllegalArgumentException(
            Redaction.redact(
                argument
                    + " carries a password while credentials(...) is set: give the credentials"
                    + " one way: "
                    + uri));
      }
      parsed.setCredentialsProvider(credentials);
    } else {
      withImmediateCredentials(parsed);
    }
    withoutLibraryInfo(parsed);
    parsed.getSentinels().forEach(ClientSetup::withoutLibraryInfo);
    return TlsSetup.apply(parsed, tls);
  }

  /**
   * Gives {@code uri} its own credentials as a provider that hands them over at once. The provider
   * Lettuce 7.7's parser makes for a URI's user info is not one, so Lettuce runs the handshake's
   * {@code HELLO} from a thread of its own ({@code thenComposeAsync}); a refused login is then
   * failed off the connection's event loop and races the channel's close, which wins about once in
   * 100 connects and reports "Connection closed prematurely" instead of {@code WRONGPASS}. With an
   * immediate provider the handshake, its failure and the close all run on the event loop, in
   * order.
   */
  static void withImmediateCredentials(RedisURI uri) {
    RedisCredentialsProvider own = uri.getCredentialsProvider();
    if (own == null || own instanceof RedisCredentialsProvider.ImmediateRedisCredentialsProvider) {
      return;
    }
    RedisCredentials given = own.resolveCredentials().block(Duration.ofSeconds(1));
    if (given != null) {
      uri.setCredentialsProvider(new StaticCredentialsProvider(given));
    }
  }

  /**
   * Whether the URI carries a password in its user info: the credentials provider its parser made
   * for it gives one at once (a URI's own provider never waits for anything).
   */
  private static boolean hasPassword(RedisURI uri) {
    RedisCredentials given =
        uri.getCredentialsProvider() == null
            ? null
            : uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
    return given != null && given.hasPassword();
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
    if (credentials != null && credentials.supportsStreaming()) {
      // every connection, pub/sub, Sentinel data-node and WAIT ones included, sends AUTH with the
      // new credentials as the provider streams them (a pub/sub connection only under RESP3,
      // which Warden leaves Lettuce to negotiate: every server Warden supports speaks it)
      options.reauthenticateBehavior(ClientOptions.ReauthenticateBehavior.ON_NEW_CREDENTIALS);
    }
    return TlsSetup.apply(options, tls);
  }

  /**
   * The client resources of one deployment: the application's when it gave them, else new ones with
   * the reconnect back-off capped (Lettuce's default grows to 30 s): see {@link
   * Settings#RECONNECT_DELAY_MAX_MILLIS}. {@link #shutdown} shuts down only Warden's own.
   */
  public ClientResources resources() {
    return shared != null ? shared : ownResources();
  }

  /** Whether {@code resources} are the application's, which Warden never shuts down. */
  public boolean shared(ClientResources resources) {
    return resources == shared;
  }

  private static ClientResources ownResources() {
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
   * How many times {@link #connect} runs a step whose failure lost its cause in Lettuce's handshake
   * (see {@link Failures#isHandshakeCauseLost}): the next attempt reports it, e.g. WRONGPASS.
   */
  static final int CONNECT_ATTEMPTS = 5;

  /**
   * Runs one step of a deployment's start-up (connecting, naming the connections) and returns what
   * it made; a step whose failure Lettuce reported without its cause is run again, up to {@link
   * #CONNECT_ATTEMPTS} times in all. If it fails, runs {@code cleanup} (which must shut down
   * everything started so far, see {@link #shutdown}) and throws.
   *
   * @param target what is connected to, for the message: "Redis at host:port"
   * @throws WardenException "cannot connect to {@code target}: why" (an ACL refusal or a TLS
   *     failure explained; never with credentials)
   */
  public static <T> T connect(String target, Supplier<T> step, Runnable cleanup) {
    RuntimeException failure;
    int attempt = 1;
    while (true) {
      try {
        return step.get();
      } catch (RuntimeException e) {
        failure = e;
      }
      if (attempt >= CONNECT_ATTEMPTS || !Failures.isHandshakeCauseLost(failure)) {
        break;
      }
      attempt++;
    }
    cleanup.run();
    throw new WardenException(
        "cannot connect to " + target + ": " + Failures.connectReason(failure), failure);
  }

  /**
   * Shuts the clients down at once (no quiet period, at most 2 s each; this closes every connection
   * they opened), then their resources unless they are the application's, without waiting for
   * Netty's threads to end.
   */
  // FutureReturnValueIgnored: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  public void shutdown(ClientResources resources, AbstractRedisClient... clients) {
    for (AbstractRedisClient client : clients) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (!shared(resources)) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}
