package dev.warden.testkit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process on a free port of 127.0.0.1, for tests: with no persistence
 * ({@code --save "" --appendonly no}), the {@code DEBUG} command enabled, and faults at hand
 * ({@link #restart()}, {@link #kill()}, {@link #pause(Duration)}).
 *
 * <pre>{@code
 * try (RedisServer server = RedisServer.start()) {
 *   try (Warden warden = Warden.connect(server.uri())) {
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p><b>Lifecycle.</b> {@link #start()} returns once the server answers {@code PING}. The server
 * keeps its port across {@link #restart()} and {@link #kill()}; its data does not survive either.
 * {@link #close()} stops the process, closes the admin connection and deletes the server's working
 * directory. A JVM shutdown hook kills any server still running when the JVM exits, so a test run
 * that never reaches {@code close()} leaves no process behind (unless the JVM itself is killed).
 * The server's output goes to {@code redis.log} in its working directory; a failed start quotes the
 * end of it.
 *
 * <p><b>Thread-safety.</b> All methods are thread-safe; the lifecycle methods ({@code restart},
 * {@code kill}, {@code pause}, {@code resume}, {@code close}) are serialized. {@link #redis()} is a
 * single shared Lettuce connection, itself thread-safe.
 *
 * <p>Requires {@code redis-server} on the {@code PATH} ({@code apt-get install redis-server}), or
 * the server that {@code -Dwarden.server} names ({@link ServerBinary}: e.g. {@code valkey}).
 *
 * @since 0.2
 */
public final class RedisServer implements AutoCloseable {
  private static final String HOST = RedisProcess.HOST;
  private static final int START_ATTEMPTS = 5;
  private static final RedisProcess.Readiness READINESS =
      new RedisProcess.Readiness(Duration.ofSeconds(10), Duration.ofSeconds(1), 10);
  private static final Duration ADMIN_COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private final Path directory;
  private final Path log;
  private final int port;
  private final List<String> extraArgs;

  // The TLS port, or -1; written once by startWithTls before the server is handed out.
  private volatile int tlsPort = -1;

  // Arguments set at run time that restarts must pass too (keepOnRestart); guarded by this.
  private List<String> keptArgs = List.of();

  // Written under the monitor; volatile so isRunning(), pid-reading and the shutdown hook see it.
  private volatile RedisProcess process;
  private volatile boolean closed;

  // Guarded by this.
  private boolean paused;
  private long pauseId;
  private ScheduledFuture<?> scheduledResume;

  // A lock of its own, so a connection attempt to a paused server cannot hold up the timer that
  // ends the pause. Order: this before adminLock.
  private final Object adminLock = new Object();

  // Guarded by adminLock.
  private ClientResources adminResources;
  private RedisClient adminClient;
  private StatefulRedisConnection<String, String> adminConnection;

  private RedisServer(
      Path directory, Path log, int port, List<String> extraArgs, RedisProcess process) {
    this.directory = directory;
    this.log = log;
    this.port = port;
    this.extraArgs = extraArgs;
    this.process = process;
  }

  /**
   * Starts a {@code redis-server} from the {@code PATH} on a free port and returns it once it
   * answers {@code PING}.
   *
   * @throws IllegalStateException if {@code redis-server} is not on the {@code PATH}, or the server
   *     does not come up within 10 s (the message quotes the end of its log)
   */
  public static RedisServer start() {
    return start(new String[0]);
  }

  /**
   * Starts a {@code redis-server} as a replica of {@code master} ({@code --replicaof}) and returns
   * it once its link to the master is up ({@code master_link_status:up}), within 10 s. {@link
   * #pause(Duration)} on the replica stalls its acknowledgements, so that {@code WAIT} on the
   * master times out.
   *
   * @throws IllegalArgumentException if {@code master} is null
   * @throws IllegalStateException if the link is not up within 10 s (the replica is closed)
   * @since 0.2
   */
  public static RedisServer startReplicaOf(RedisServer master) {
    if (master == null) {
      throw new IllegalArgumentException("master must not be null");
    }
    RedisServer replica = start("--replicaof", master.host(), Integer.toString(master.port()));
    try {
      replica.awaitLinkUp(Duration.ofSeconds(10));
      return replica;
    } catch (RuntimeException e) {
      replica.close();
      throw e;
    }
  }

  /**
   * Waits until this replica's link to its master is up ({@code INFO replication} says {@code
   * master_link_status:up}), polling every 20 ms.
   *
   * @throws IllegalStateException if it is not up within {@code limit}
   * @since 0.2
   */
  public void awaitLinkUp(Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!redis().info("replication").contains("master_link_status:up")) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            this
                + ": the replication link is not up after "
                + limit
                + ": "
                + redis().info("replication"));
      }
      try {
        Thread.sleep(20); // polling a server's state: there is no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the replication link", e);
      }
    }
  }

  /**
   * Starts a {@code redis-server} like {@link #start()}, with {@code extraArgs} appended to its
   * command line, e.g. {@code start("--maxmemory", "10mb")}.
   *
   * @throws IllegalStateException if {@code redis-server} is not on the {@code PATH}, or the server
   *     does not come up within 10 s, e.g. because an argument is invalid (the message quotes the
   *     end of its log)
   */
  public static RedisServer start(String... extraArgs) {
    Objects.requireNonNull(extraArgs, "extraArgs must not be null");
    List<String> extras = List.copyOf(Arrays.asList(extraArgs));
    requireExecutableOnPath();
    Path directory;
    try {
      directory = Files.createTempDirectory("warden-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a working directory for redis-server", e);
    }
    Reaper.trackDirectory(directory);
    Path log = directory.resolve("redis.log");
    try {
      // The free port is only free until someone else binds it: retry on a lost race.
      for (int attempt = 1; ; attempt++) {
        int port = freePort();
        RedisProcess process = launch(directory, log, port, extras);
        if (process != null) {
          return new RedisServer(directory, log, port, extras, process);
        }
        if (attempt == START_ATTEMPTS) {
          throw new IllegalStateException(
              "redis-server found no free port in "
                  + START_ATTEMPTS
                  + " attempts; "
                  + LogTail.of(log));
        }
      }
    } catch (RuntimeException e) {
      deleteQuietly(directory, e);
      throw e;
    }
  }

  /**
   * Starts a {@code redis-server} like {@link #start(String...)} that also takes TLS connections,
   * on a second free port ({@link #tlsUri()}); the plain port stays open for the test's own admin
   * connection. Each file is PEM, as {@code redis-server} takes it ({@code --tls-cert-file}, {@code
   * --tls-key-file}, {@code --tls-ca-cert-file}).
   *
   * @param certificate the server's certificate
   * @param privateKey its private key
   * @param caCertificates the authorities that client certificates must be signed by
   * @param requireClientCertificates whether a TLS client must present a certificate signed by them
   *     ({@code --tls-auth-clients yes}) or need not ({@code no})
   * @param extraArgs more arguments for the command line
   * @throws IllegalStateException if the server does not come up within 10 s, e.g. because this
   *     {@code redis-server} was built without TLS (the message quotes the end of its log)
   * @since 0.2
   */
  public static RedisServer startWithTls(
      Path certificate,
      Path privateKey,
      Path caCertificates,
      boolean requireClientCertificates,
      String... extraArgs) {
    Objects.requireNonNull(extraArgs, "extraArgs must not be null");
    int tlsPort = freePort();
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--tls-port",
            String.valueOf(tlsPort),
            "--tls-cert-file",
            certificate.toAbsolutePath().toString(),
            "--tls-key-file",
            privateKey.toAbsolutePath().toString(),
            "--tls-ca-cert-file",
            caCertificates.toAbsolutePath().toString(),
            "--tls-auth-clients",
            requireClientCertificates ? "yes" : "no"));
    args.addAll(Arrays.asList(extraArgs));
    RedisServer server = start(args.toArray(String[]::new));
    server.tlsPort = tlsPort;
    return server;
  }

  /**
   * Returns the server's TLS URI, {@code "rediss://127.0.0.1:<tls port>"}, for a server started by
   * {@link #startWithTls}.
   *
   * @throws IllegalStateException if the server was started without TLS
   * @since 0.2
   */
  public String tlsUri() {
    int port = tlsPort;
    if (port < 0) {
      throw new IllegalStateException("this server was started without TLS: see startWithTls");
    }
    return "rediss://" + HOST + ":" + port;
  }

  /** The TLS port of a server started by {@link #startWithTls}, or -1. */
  int tlsPort() {
    return tlsPort;
  }

  /** Returns the address the server listens on: always {@code "127.0.0.1"}. */
  public String host() {
    return HOST;
  }

  /** Returns the port the server listens on; it stays the same across restarts. */
  public int port() {
    return port;
  }

  /** Returns the server's URI in Lettuce syntax, {@code "redis://127.0.0.1:<port>"}. */
  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /**
   * Returns whether the process is alive: {@code true} while paused, {@code false} after {@link
   * #kill()} or {@link #close()}.
   */
  public boolean isRunning() {
    RedisProcess current = process;
    return !closed && current != null && current.isAlive();
  }

  /**
   * Stops the server and starts it again on the same port, returning once it answers {@code PING}.
   * Ends a pause first. The server is asked to {@code SHUTDOWN NOSAVE} and killed if it has not
   * exited within 10 s. All data is lost. After {@link #kill()}, only starts it again. The {@link
   * #redis()} connection reconnects on its own.
   *
   * @throws IllegalStateException if the server is closed, or does not come back within 10 s, e.g.
   *     because another process took its port
   */
  public synchronized void restart() {
    requireOpen();
    resume();
    stopProcess();
    List<String> args = new ArrayList<>(extraArgs);
    args.addAll(keptArgs);
    RedisProcess restarted = launch(directory, log, port, args);
    if (restarted == null) {
      throw new IllegalStateException(
          "redis-server cannot restart: another process took port " + port + "; " + tail());
    }
    process = restarted;
  }

  /**
   * Sets each {@code name value} pair of {@code settings} now ({@code CONFIG SET}) and on every
   * later {@link #restart()} (on its command line): for what the testkit sets once the server is
   * up, such as the address a node announces ({@code replica-announce-port}, {@code
   * cluster-announce-port}) when the proxy in front of it had to know its port first.
   *
   * @throws IllegalArgumentException if the pairs are incomplete
   */
  synchronized void keepOnRestart(String... settings) {
    if (settings.length % 2 != 0) {
      throw new IllegalArgumentException(
          "settings must be name-value pairs: " + Arrays.toString(settings));
    }
    List<String> kept = new ArrayList<>(keptArgs);
    for (int i = 0; i < settings.length; i += 2) {
      redis().configSet(settings[i], settings[i + 1]);
      kept.add("--" + settings[i]);
      kept.add(settings[i + 1]);
    }
    keptArgs = List.copyOf(kept);
  }

  /**
   * Adds {@code args} to the command line of every later {@link #restart()}, for what was set at
   * run time by a command rather than a setting (e.g. {@code --replicaof} after {@code REPLICAOF}).
   */
  synchronized void alsoOnRestart(String... args) {
    List<String> kept = new ArrayList<>(keptArgs);
    kept.addAll(Arrays.asList(args));
    keptArgs = List.copyOf(kept);
  }

  /**
   * Kills the server with SIGKILL and returns once the process has exited; the server stays down
   * until {@link #restart()}. Commands sent meanwhile fail or time out. Does nothing if the server
   * is closed or already down.
   *
   * @throws IllegalStateException if the process has not exited 10 s after SIGKILL
   */
  public synchronized void kill() {
    if (closed) {
      return;
    }
    cancelScheduledResume();
    paused = false;
    RedisProcess current = process;
    if (current != null) {
      current.kill();
    }
  }

  /**
   * Freezes the server now with SIGSTOP and returns at once; a daemon timer resumes it with SIGCONT
   * after {@code duration}. While frozen the server accepts connections but answers nothing, as in
   * a long GC pause or a stalled VM. Pausing again while paused replaces the remaining time with
   * {@code duration}.
   *
   * @throws IllegalArgumentException if {@code duration} is null or negative
   * @throws IllegalStateException if the server is not running
   */
  public synchronized void pause(Duration duration) {
    if (duration == null || duration.isNegative()) {
      throw new IllegalArgumentException("duration must not be null or negative: " + duration);
    }
    requireRunning();
    process.signal("STOP");
    paused = true;
    cancelScheduledResume();
    long id = ++pauseId;
    scheduledResume =
        Resumer.TIMER.schedule(() -> resumePause(id), duration.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Ends a pause now with SIGCONT. Does nothing if the server is not paused. */
  public synchronized void resume() {
    if (!paused) {
      return;
    }
    cancelScheduledResume();
    paused = false;
    RedisProcess current = process;
    if (current != null && current.isAlive()) {
      current.signal("CONT");
    }
  }

  /**
   * Returns the synchronous commands of a Lettuce connection to this server for test code: admin
   * commands ({@code CLIENT KILL}, {@code PUBSUB}, {@code INFO}, {@code DEBUG}) and setting up or
   * checking data. Connects on first call; later calls return the same connection, which reconnects
   * on its own after {@link #restart()}. Commands time out after 10 s. Do not close it: {@link
   * #close()} does.
   *
   * @throws IllegalStateException if the server is closed
   * @throws io.lettuce.core.RedisConnectionException if the first connection attempt fails
   */
  public RedisCommands<String, String> redis() {
    synchronized (adminLock) {
      requireOpen();
      if (adminConnection == null) {
        connectAdmin();
      }
      return adminConnection.sync();
    }
  }

  /**
   * Deletes every key of every database ({@code FLUSHALL}).
   *
   * @throws IllegalStateException if the server is closed
   */
  public void flushAll() {
    redis().flushall();
  }

  /**
   * Returns how many times each command has run since the server started or since the last {@code
   * CONFIG RESETSTAT}, from {@code INFO commandstats}: lower-case command name (subcommands as
   * {@code "config|resetstat"}) to calls. Commands never run are absent. The testkit's own calls
   * count too: the start-up probe's {@code ping} and {@code info}, the admin connection's {@code
   * hello}, earlier calls of this method as {@code info}, and after {@link WardenExtension}'s reset
   * the {@code config|resetstat} itself; compare the commands under test, not the totals.
   *
   * @throws IllegalStateException if the server is closed
   */
  public Map<String, Long> commandCalls() {
    Map<String, Long> calls = new LinkedHashMap<>();
    for (String line : redis().info("commandstats").split("\r?\n", -1)) {
      // cmdstat_set:calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      String command = line.substring("cmdstat_".length(), colon).toLowerCase(Locale.ROOT);
      for (String field : line.substring(colon + 1).split(",", -1)) {
        if (field.startsWith("calls=")) {
          calls.put(command, Long.parseLong(field.substring("calls=".length())));
        }
      }
    }
    return Map.copyOf(calls);
  }

  /**
   * Stops the server, closes the {@link #redis()} connection and deletes the server's working
   * directory. Idempotent.
   *
   * @throws UncheckedIOException if the working directory cannot be deleted (the process is stopped
   *     regardless)
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    // Before stopping the server, so the admin connection does not try to reconnect to it.
    closeAdminConnection();
    resume();
    stopProcess();
    closed = true;
    try {
      Reaper.deleteRecursively(directory);
      Reaper.untrackDirectory(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete redis-server's directory " + directory, e);
    }
  }

  /** Returns a description naming the address and the process id, for test failure messages. */
  @Override
  public String toString() {
    RedisProcess current = process;
    return "RedisServer["
        + HOST
        + ":"
        + port
        + (current == null ? "" : ", pid " + current.pid())
        + (isRunning() ? "" : ", not running")
        + "]";
  }

  private void resumePause(long id) {
    synchronized (this) {
      // A newer pause, a resume() or a kill() since scheduling makes this timer obsolete.
      if (paused && id == pauseId) {
        resume();
      }
    }
  }

  private void cancelScheduledResume() {
    if (scheduledResume != null) {
      scheduledResume.cancel(/* mayInterruptIfRunning= */ false);
      scheduledResume = null;
    }
  }

  private void stopProcess() {
    RedisProcess current = process;
    if (current != null) {
      current.stop();
    }
  }

  private void connectAdmin() {
    // Lettuce backs off up to 30 s by default, which would leave this connection down long
    // after a killed server is restarted; tests want it back within a fraction of a second.
    adminResources =
        DefaultClientResources.builder()
            .reconnectDelay(
                Delay.exponential(
                    Duration.ofMillis(1), Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS))
            .build();
    adminClient =
        RedisClient.create(
            adminResources,
            RedisURI.builder()
                .withHost(HOST)
                .withPort(port)
                .withTimeout(ADMIN_COMMAND_TIMEOUT)
                .build());
    try {
      adminConnection = adminClient.connect();
    } catch (RuntimeException e) {
      closeAdminConnection();
      throw e;
    }
  }

  // FutureReturnValueIgnored: close does not wait for Netty's threads to end
  @SuppressWarnings("FutureReturnValueIgnored")
  private void closeAdminConnection() {
    synchronized (adminLock) {
      if (adminConnection != null) {
        adminConnection.close();
        adminConnection = null;
      }
      if (adminClient != null) {
        adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        adminClient = null;
      }
      if (adminResources != null) {
        adminResources.shutdown(0, 2, TimeUnit.SECONDS);
        adminResources = null;
      }
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private void requireRunning() {
    requireOpen();
    if (!isRunning()) {
      throw new IllegalStateException(this + " is not running: restart() it first");
    }
  }

  private String tail() {
    return LogTail.of(log);
  }

  private static void requireExecutableOnPath() {
    ServerBinary.current(); // throws, saying how to install it, if it is missing
  }

  /** The server binary that {@link ServerBinary#current()} chose, as a path. */
  private static String executable() {
    return ServerBinary.current().server().toString();
  }

  // AddressSelection: HOST is the literal 127.0.0.1: no name is resolved
  @SuppressWarnings("AddressSelection")
  static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(HOST, 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + HOST, e);
    }
  }

  /**
   * Starts a server on {@code port} and returns it once it answers; {@code null} if it could not
   * bind the port or another server owns it.
   */
  private static RedisProcess launch(Path directory, Path log, int port, List<String> extraArgs) {
    List<String> command = new ArrayList<>();
    command.add(executable());
    command.addAll(
        List.of(
            "--port", Integer.toString(port),
            "--bind", HOST,
            "--save", "",
            "--appendonly", "no",
            "--enable-debug-command", "yes",
            "--daemonize", "no",
            "--dir", directory.toString()));
    command.addAll(extraArgs);
    return RedisProcess.start(
        executable(),
        command,
        directory,
        log,
        port,
        ServerBinary.current().installHint(),
        READINESS);
  }

  private static void deleteQuietly(Path directory, RuntimeException failure) {
    try {
      Reaper.deleteRecursively(directory);
      Reaper.untrackDirectory(directory);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Holds the timer lazily, so servers never paused start no thread. */
  private static final class Resumer {
    static final ScheduledExecutorService TIMER = newTimer();

    private static ScheduledExecutorService newTimer() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread thread = new Thread(task, "warden-testkit-resume");
                thread.setDaemon(true);
                return thread;
              });
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }
}
