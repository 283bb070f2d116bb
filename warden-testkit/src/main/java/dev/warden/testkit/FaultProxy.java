package dev.warden.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of one target address, for network faults in
 * tests: a silent partition ({@link #blackhole()}), a one-way partition ({@link
 * #blackhole(Direction)}), a partition of one client address ({@link #blackholeFrom}), latency
 * ({@link #delay(Duration)}), reset connections ({@link #cut()}) and refused ones ({@link
 * #refuse()}). {@link #heal()} ends them all.
 *
 * <pre>{@code
 * try (RedisServer server = RedisServer.start();
 *     FaultProxy proxy = FaultProxy.start(server)) {
 *   try (Warden warden = Warden.connect(proxy.uri())) {
 *     proxy.blackhole();   // commands now time out; the connection stays open
 *     proxy.heal();        // held bytes are delivered, in order
 *   }
 * }
 * }</pre>
 *
 * <p><b>Model.</b> Each accepted connection gets its own connection to the target: a pair, served
 * by two daemon threads per direction: one reads chunks and queues them, stamped with the time they
 * were read; the other writes each on when it is due. A blackholed direction stops reading and
 * writing: the chunks queued and everything behind them wait, in the proxy and in the kernel's
 * buffers, as TCP would retransmit across a partition, and are delivered in order on {@link
 * #heal()}. A delay holds each chunk for the delay from when it was read, in each direction, so a
 * request and its reply take at least twice the delay; chunks read meanwhile are held alongside,
 * not behind it, as on a long link: a delay adds latency, not a limit on how many requests a
 * connection has in flight. When either side of a pair closes or fails, the proxy closes both
 * (after writing on what it read before a close). If the target refuses a connection, the proxy
 * resets the accepted one.
 *
 * <p><b>Thread-safety.</b> All methods are thread-safe and take effect at once for every live pair
 * and every later one. Threads are named {@code warden-fault-proxy-<port>-...} and are daemons;
 * {@link #close()} ends them all.
 *
 * @since 0.2
 */
public final class FaultProxy implements AutoCloseable {
  /** A direction of traffic through the proxy. */
  public enum Direction {
    /** Bytes the client sends to the target (requests). */
    CLIENT_TO_TARGET,
    /** Bytes the target sends back to the client (replies). */
    TARGET_TO_CLIENT
  }

  private static final String HOST = "127.0.0.1";
  private static final int CHUNK = 16 * 1024;
  private static final int HELD_CHUNKS = 1024; // per direction of a pair: up to 16 MiB
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);
  private static final long SUB_MILLISECOND = TimeUnit.MILLISECONDS.toNanos(1);

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();
  // Every pump thread not yet seen dead, so that close() can join them all; pruned on accept.
  private final Set<Thread> pumps = ConcurrentHashMap.newKeySet();
  private final AtomicLong pairIds = new AtomicLong();
  private final AtomicLong chunksRead = new AtomicLong(); // both directions, every pair (tests)

  // Guarded by this; waiting pumps are woken with notifyAll on every change.
  private final Set<Direction> blackholed = EnumSet.noneOf(Direction.class);
  private final Set<String> blackholedSources = new HashSet<>();
  private long delayNanos;
  private boolean refusing;
  private boolean closed;

  private FaultProxy(String targetHost, int targetPort, ServerSocket listener) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = listener;
    this.acceptor = new Thread(this::acceptLoop, threadName("accept"));
    acceptor.setDaemon(true);
  }

  /**
   * Starts a proxy on a free port of 127.0.0.1 in front of {@code targetHost:targetPort}, with no
   * fault. The target need not be up: connections made while it is down are reset.
   *
   * @throws IllegalArgumentException if {@code targetPort} is not a TCP port
   * @throws UncheckedIOException if the proxy cannot bind a port
   */
  // AddressSelection: HOST is the literal 127.0.0.1: no name is resolved
  @SuppressWarnings("AddressSelection")
  public static FaultProxy start(String targetHost, int targetPort) {
    Objects.requireNonNull(targetHost, "targetHost must not be null");
    if (targetPort < 1 || targetPort > 65_535) {
      throw new IllegalArgumentException("targetPort must be in 1..65535: " + targetPort);
    }
    ServerSocket listener;
    try {
      listener = new ServerSocket();
      listener.bind(new InetSocketAddress(HOST, 0));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind a port on " + HOST + " for the proxy", e);
    }
    FaultProxy proxy = new FaultProxy(targetHost, targetPort, listener);
    proxy.acceptor.start();
    return proxy;
  }

  /** Starts a proxy in front of {@code target}, like {@link #start(String, int)}. */
  public static FaultProxy start(RedisServer target) {
    Objects.requireNonNull(target, "target must not be null");
    return start(target.host(), target.port());
  }

  /** Returns the address the proxy listens on: always {@code "127.0.0.1"}. */
  public String host() {
    return HOST;
  }

  /** Returns the port the proxy listens on. */
  public int port() {
    return listener.getLocalPort();
  }

  /** Returns the proxy's URI in Lettuce syntax, {@code "redis://127.0.0.1:<port>"}. */
  public String uri() {
    return "redis://" + HOST + ":" + port();
  }

  /** Ends every fault: forwards both ways again with no delay, and accepts new connections. */
  public synchronized void heal() {
    blackholed.clear();
    blackholedSources.clear();
    delayNanos = 0;
    refusing = false;
    notifyAll();
  }

  /**
   * Stops forwarding in both directions and keeps every socket open: a silent partition. Commands
   * sent through the proxy get no reply and time out; no side sees a disconnect. New connections
   * are still accepted (and silent too).
   */
  public synchronized void blackhole() {
    blackholed.addAll(EnumSet.allOf(Direction.class));
    notifyAll();
  }

  /**
   * Stops forwarding in one direction and keeps every socket open, e.g. {@code TARGET_TO_CLIENT}:
   * requests reach the target and are executed, their replies are held back.
   */
  public synchronized void blackhole(Direction direction) {
    blackholed.add(Objects.requireNonNull(direction, "direction must not be null"));
    notifyAll();
  }

  /**
   * Stops forwarding, both ways, on every connection (live or later) whose client connected from
   * {@code sourceAddress}, e.g. {@code "127.0.0.12"}, and keeps the sockets open: a partition of
   * that one client, where clients bind distinct loopback addresses (as a Redis node does with
   * {@code bind-source-addr}). Ended by {@link #healFrom} or {@link #heal()}.
   *
   * @throws IllegalArgumentException if {@code sourceAddress} is null or empty
   * @since 0.2
   */
  public synchronized void blackholeFrom(String sourceAddress) {
    if (sourceAddress == null || sourceAddress.isEmpty()) {
      throw new IllegalArgumentException(
          "sourceAddress must not be null or empty: " + sourceAddress);
    }
    blackholedSources.add(sourceAddress);
    notifyAll();
  }

  /**
   * Ends a {@link #blackholeFrom} of {@code sourceAddress}; other faults stay. Held bytes are
   * delivered, in order.
   *
   * @since 0.2
   */
  public synchronized void healFrom(String sourceAddress) {
    blackholedSources.remove(sourceAddress);
    notifyAll();
  }

  /**
   * Holds every chunk for {@code delay} before forwarding it, in each direction; {@code
   * Duration.ZERO} ends the delay.
   *
   * @throws IllegalArgumentException if {@code delay} is null or negative
   */
  public synchronized void delay(Duration delay) {
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be null or negative: " + delay);
    }
    delayNanos = delay.toNanos();
    notifyAll();
  }

  /**
   * Resets every live pair now: both sockets are closed with {@code SO_LINGER 0}, so the client and
   * the target each get a TCP RST. Later connections are accepted as usual (see {@link #refuse()}).
   */
  public void cut() {
    for (Pair pair : List.copyOf(pairs)) {
      pair.close(/* reset= */ true);
    }
  }

  /**
   * Resets every new connection as soon as it is accepted, until {@link #heal()}; live pairs keep
   * working. A client sees its connection reset before any reply.
   */
  public synchronized void refuse() {
    refusing = true;
  }

  /** Returns how many chunks the proxy has read so far, both ways, on every pair (tests). */
  long chunksRead() {
    return chunksRead.get();
  }

  /** Returns how many pairs are live: connections accepted and not yet closed or cut. */
  public int connections() {
    return pairs.size();
  }

  /**
   * Stops listening, closes every pair and ends the proxy's threads (waiting up to 5 s for them).
   * Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
    }
    try {
      listener.close();
    } catch (IOException e) {
      // Closing a listener fails only if already closed; the acceptor ends either way.
    }
    for (Pair pair : List.copyOf(pairs)) {
      pair.close(/* reset= */ false);
    }
    join(acceptor); // after this, no pair is added
    for (Thread pump : List.copyOf(pumps)) {
      join(pump);
      pumps.remove(pump);
    }
  }

  /** Returns a description naming both addresses and the live pairs, for failure messages. */
  @Override
  public String toString() {
    return "FaultProxy["
        + HOST
        + ":"
        + port()
        + " -> "
        + targetHost
        + ":"
        + targetPort
        + ", "
        + connections()
        + " connections]";
  }

  private void acceptLoop() {
    while (true) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      boolean refuse;
      synchronized (this) {
        if (closed) {
          reset(client);
          return;
        }
        refuse = refusing;
      }
      if (refuse) {
        reset(client);
        continue;
      }
      Socket target = new Socket();
      try {
        target.connect(
            new InetSocketAddress(InetAddress.getByName(targetHost), targetPort),
            (int) CONNECT_TIMEOUT.toMillis());
        client.setTcpNoDelay(true);
        target.setTcpNoDelay(true);
      } catch (IOException e) {
        // The target is down or unreachable: the client sees its connection reset.
        reset(target);
        reset(client);
        continue;
      }
      pumps.removeIf(pump -> !pump.isAlive());
      Pair pair = new Pair(pairIds.incrementAndGet(), client, target);
      pairs.add(pair);
      pair.start();
      synchronized (this) {
        if (closed) {
          pair.close(/* reset= */ false);
        }
      }
    }
  }

  /**
   * Waits while {@code direction} is blackholed and until the chunk read at {@code readNanos} has
   * been held for the current delay. Returns {@code false} if the proxy closed meanwhile.
   *
   * <p>With {@code due} false, only waits while the direction is blackholed (a reader, before it
   * reads on).
   *
   * <p>The last millisecond of a delay is parked outside the monitor: {@code Object.wait} rounds
   * any nanoseconds up to a whole millisecond, which made a delay of 250 us hold a chunk 1 ms or
   * more. A change made while parked (a blackhole, a heal) is seen when the park ends.
   */
  private boolean awaitForwarding(Direction direction, long readNanos, boolean due, Pair pair)
      throws InterruptedException {
    while (true) {
      long remaining;
      synchronized (this) {
        if (closed || pair.isClosed()) {
          return false;
        }
        if (blackholed.contains(direction) || blackholedSources.contains(pair.source)) {
          wait();
          continue;
        }
        remaining = readNanos + delayNanos - System.nanoTime();
        if (!due || remaining <= 0) {
          return true;
        }
        if (remaining > SUB_MILLISECOND) {
          TimeUnit.NANOSECONDS.timedWait(this, remaining - SUB_MILLISECOND);
          continue;
        }
      }
      LockSupport.parkNanos(remaining); // the delay itself: no event to wait for
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private synchronized void wake() {
    notifyAll();
  }

  private String threadName(String role) {
    return "warden-fault-proxy-" + listener.getLocalPort() + "-" + role;
  }

  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (SocketException e) {
      // Already closed, or never connected: close() below is all there is to do.
    }
    try {
      socket.close();
    } catch (IOException e) {
      // Nothing more to release.
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(JOIN_TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Bytes read from one side, and when (System.nanoTime()); END: the side closed. */
  private static final class Chunk {
    static final Chunk END = new Chunk(0, new byte[0]);

    final long readNanos;
    final byte[] bytes;

    Chunk(long readNanos, byte[] bytes) {
      this.readNanos = readNanos;
      this.bytes = bytes;
    }
  }

  /** A client connection and the proxy's connection to the target for it. */
  private final class Pair {
    private final Socket client;
    private final Socket target;
    final String source; // the client's address
    private final Pipe up;
    private final Pipe down;
    private final AtomicBoolean closing = new AtomicBoolean();

    Pair(long id, Socket client, Socket target) {
      this.client = client;
      this.target = target;
      this.source = client.getInetAddress().getHostAddress();
      this.up = new Pipe(client, target, Direction.CLIENT_TO_TARGET, id + "-up");
      this.down = new Pipe(target, client, Direction.TARGET_TO_CLIENT, id + "-down");
    }

    void start() {
      up.start();
      down.start();
    }

    boolean isClosed() {
      return closing.get();
    }

    /**
     * One direction of the pair: a reader that queues what it reads, stamped with the time read,
     * and a writer that writes each chunk on when it is due (so a delay holds chunks side by side).
     * The queue is bounded: a reader that fills it waits, and the kernel's buffers fill behind it.
     */
    private final class Pipe {
      private final Socket from;
      private final Socket to;
      private final Direction direction;
      private final BlockingQueue<Chunk> held = new LinkedBlockingQueue<>(HELD_CHUNKS);
      private final Thread reader;
      private final Thread writer;

      Pipe(Socket from, Socket to, Direction direction, String name) {
        this.from = from;
        this.to = to;
        this.direction = direction;
        this.reader = new Thread(this::read, threadName(name));
        this.writer = new Thread(this::write, threadName(name + "-out"));
        reader.setDaemon(true);
        writer.setDaemon(true);
      }

      void start() {
        pumps.add(reader);
        pumps.add(writer);
        reader.start();
        writer.start();
      }

      private void read() {
        byte[] buffer = new byte[CHUNK];
        try {
          InputStream in = from.getInputStream();
          while (awaitForwarding(direction, 0, /* due= */ false, Pair.this)) {
            int read = in.read(buffer);
            if (read < 0) {
              held.put(Chunk.END); // what was read before goes on, then the pair closes
              return;
            }
            held.put(new Chunk(System.nanoTime(), Arrays.copyOf(buffer, read)));
            chunksRead.incrementAndGet();
          }
        } catch (IOException e) {
          // Reset, cut or closed: the pair ends below.
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        close(/* reset= */ false);
      }

      private void write() {
        try {
          OutputStream out = to.getOutputStream();
          while (true) {
            Chunk chunk = held.take();
            if (chunk == Chunk.END
                || !awaitForwarding(direction, chunk.readNanos, /* due= */ true, Pair.this)) {
              break;
            }
            out.write(chunk.bytes);
            out.flush();
          }
        } catch (IOException e) {
          // Reset, cut or closed: the pair ends below.
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        close(/* reset= */ false);
      }

      /** Ends the writer once the pair is closed: what it held is dropped. */
      void drop() {
        held.clear();
        if (!held.offer(Chunk.END)) {
          writer.interrupt(); // only if a reader filled the queue again meanwhile
        }
      }
    }

    void close(boolean reset) {
      if (!closing.compareAndSet(false, true)) {
        return;
      }
      pairs.remove(this);
      if (reset) {
        reset(client);
        reset(target);
      } else {
        closeQuietly(client);
        closeQuietly(target);
      }
      up.drop();
      down.drop();
      wake(); // a pump waiting on a blackhole or a delay sees the pair closed
    }

    private void closeQuietly(Socket socket) {
      try {
        socket.close();
      } catch (IOException e) {
        // Nothing more to release.
      }
    }
  }
}
